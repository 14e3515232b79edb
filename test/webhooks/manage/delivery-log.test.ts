import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../../helpers/db.js';
import type { Waypost } from '../../../src/sdk.js';
import { createWebhook } from '../../../src/webhooks/manage.js';
import { closeAdminSuite, fakeClock, openAdminSuite, seedDelivery, type Receiver } from './fixtures.js';

describe.each(DIALECTS)('delivery log admin API on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let auth: Record<string, string>;
  let receiver: Receiver;
  const clock = fakeClock();

  beforeEach(async () => {
    clock.set(Date.parse('2026-03-01T12:00:00Z'));
    ({ wp, app, auth, receiver } = await openAdminSuite(dialect, clock));
  });
  afterEach(async () => closeAdminSuite({ wp, receiver }));

  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url, headers: auth });
    return { status: res.statusCode, body: res.json() };
  };

  it('lists deliveries newest first, filtered by webhook, status, event type and time, with pagination', async () => {
    const a = await createWebhook(wp.core,
      { name: 'A', url: receiver.url, events: ['booking.created', 'review.created'] });
    const b = await createWebhook(wp.core, { name: 'B', url: receiver.url, events: ['booking.created'] });
    const made: Array<{ id: string; webhook: string; type: string; status: string; at: string }> = [];
    const plan: Array<[string, string, 'pending' | 'succeeded' | 'failed']> = [
      [a.id, 'booking.created', 'succeeded'], [b.id, 'booking.created', 'failed'],
        [a.id, 'review.created', 'succeeded'],
      [a.id, 'booking.created', 'failed'], [b.id, 'booking.created', 'pending'], [a.id, 'review.created', 'pending'],
        [a.id, 'booking.created', 'succeeded'],
    ];
    for (const [webhook, type, status] of plan) {
      clock.advance(60_000);
      const { deliveryId } = await seedDelivery(wp, webhook, type, status);
      made.push({ id: deliveryId, webhook, type, status, at: new Date(clock.now()).toISOString() });
    }
    const newestFirst = [...made].reverse();

    const all = await get('/admin/api/deliveries');
    expect(all.body.total).toBe(7);
    expect(all.body.items.map((d: { id: string }) => d.id)).toEqual(newestFirst.map((d) => d.id));
    expect(all.body.items[0]).toMatchObject({ webhook_id: a.id, webhook_name: 'A', event_type: 'booking.created',
      status: 'succeeded', attempts: 1, last_status: 200, test: false, redelivery_of: null, cancel_reason: null });
    expect(all.body.items[1].next_attempt_at).toBe(made[5].at); // pending: due when queued

    const ofB = await get(`/admin/api/deliveries?webhook_id=${b.id}`);
    expect(ofB.body.items.map((d: { id: string }) => d.id)).toEqual(newestFirst.filter((d) => d.webhook === b.id)
      .map((d) => d.id));
    const failed = await get('/admin/api/deliveries?status=failed');
    expect(failed.body.items.map((d: { id: string }) => d.id)).toEqual(newestFirst.filter((d) => d.status === 'failed')
      .map((d) => d.id));
    const reviewsOfA = await get(`/admin/api/deliveries?webhook_id=${a.id}&event_type=review.created`);
    expect(reviewsOfA.body.total).toBe(2);
    const window = await get(`/admin/api/deliveries?since=${made[2].at}&until=${made[5].at}`);
    expect(window.body.items.map((d: { id: string }) => d.id)).toEqual([made[4].id, made[3].id, made[2].id]);

    const page1 = await get('/admin/api/deliveries?perpage=3&page=1');
    const page3 = await get('/admin/api/deliveries?perpage=3&page=3');
    expect(page1.body).toMatchObject({ total: 7, page: 1, perpage: 3 });
    expect(page1.body.items.map((d: { id: string }) => d.id)).toEqual(newestFirst.slice(0, 3).map((d) => d.id));
    expect(page3.body.items.map((d: { id: string }) => d.id)).toEqual([newestFirst[6].id]);
  });

  it('rejects bad filters with 400 naming the parameter', async () => {
    for (const [query, parameter] of [['status=broken', 'status'], ['perpage=0', 'perpage'], ['perpage=101', 'perpage'],
      ['page=x', 'page'], ['since=yesterday', 'since'], ['event_type=booking.deleted', 'event_type'],
      ['webhook_id=a&webhook_id=b', 'webhook_id']]) {
      const res = await get(`/admin/api/deliveries?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.parameter, query).toBe(parameter);
    }
  });

  it('shows a delivery with its event envelope and every attempt, request and response', async () => {
    const hook = await createWebhook(wp.core, { name: 'CRM', url: receiver.url, events: ['booking.created'] });
    receiver.answer = { status: 500, body: 'database is down', headers: { 'x-trace': 'abc' } };
    const test = await app.inject({ method: 'POST', url: `/admin/api/webhooks/${hook.id}/test`, headers: auth });
    const { delivery_id: id, event_id: eventId } = test.json();

    const { status, body } = await get(`/admin/api/deliveries/${id}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ id, webhook_id: hook.id, webhook_name: 'CRM', event_type: 'booking.created',
      status: 'failed', last_status: 500, attempt_count: 1, test: true });
    expect(body.event)
      .toMatchObject({ id: eventId, type: 'booking.created', data: { id: expect.any(Number), currency: 'EUR' } });
    expect(body.attempts).toHaveLength(1);
    const [attempt] = body.attempts;
    expect(attempt).toMatchObject({ attempt: 1, success: false, response: { status: 500, body: 'database is down' } });
    expect(attempt.response.headers['x-trace']).toBe('abc');
    expect(attempt.request.url).toBe(receiver.url);
    expect(attempt.request.body).toBe(receiver.received[0].body);
    expect(attempt.request.headers['X-Waypost-Signature']).toBe(receiver.received[0].headers['x-waypost-signature']);
    expect(attempt.error).toContain('500');
    expect(typeof attempt.duration_ms).toBe('number');
    expect(Date.parse(attempt.started_at)).not.toBeNaN();
    expect(JSON.stringify(body))
      .not.toContain((await app.inject({ method: 'GET', url: `/admin/api/webhooks/${hook.id}/secret`, headers: auth }))
      .json().secret);

    expect((await get('/admin/api/deliveries/dlv_unknown')).status).toBe(404);
  });

  it('redeliver queues a new delivery of the same event; a disabled webhook answers 409 until re-enabled', async () => {
    const hook = await createWebhook(wp.core, { name: 'CRM', url: receiver.url, events: ['booking.created'] });
    const original = await seedDelivery(wp, hook.id, 'booking.created', 'failed');
    const woken: number[] = [];
    wp.core.bus.on('deliveries.queued', () => woken.push(1));

    const res = await app.inject({ method: 'POST', url: `/admin/api/deliveries/${original.deliveryId}/redeliver`,
      headers: auth });
    expect(res.statusCode).toBe(201);
    expect(res.json())
      .toMatchObject({ event_id: original.eventId, webhook_id: hook.id, redelivery_of: original.deliveryId,
      status: 'pending', attempts: 0 });
    expect(res.json().id).not.toBe(original.deliveryId);
    expect(woken.length).toBeGreaterThan(0);
    // the original is untouched
    expect((await get(`/admin/api/deliveries/${original.deliveryId}`)).body.status).toBe('failed');

    // Disabled (e.g. auto-disabled): its pending redelivery is cancelled and cannot be redelivered until re-enabled.
    await app.inject({ method: 'POST', url: `/admin/api/webhooks/${hook.id}/disable`, headers: auth });
    const cancelled = res.json().id;
    expect((await get(`/admin/api/deliveries/${cancelled}`)).body.status).toBe('cancelled');
    const refused = await app.inject({ method: 'POST', url: `/admin/api/deliveries/${cancelled}/redeliver`,
      headers: auth });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('webhook_disabled');
    expect(refused.json().detail).toMatch(/re-enable/i);

    await app.inject({ method: 'POST', url: `/admin/api/webhooks/${hook.id}/enable`, headers: auth });
    const again = await app.inject({ method: 'POST', url: `/admin/api/deliveries/${cancelled}/redeliver`,
      headers: auth });
    expect(again.statusCode).toBe(201);
    expect(again.json()).toMatchObject({ event_id: original.eventId, redelivery_of: cancelled, status: 'pending' });
    expect((await get(`/admin/api/deliveries?webhook_id=${hook.id}`)).body.total).toBe(3);
    expect((await app.inject({ method: 'POST', url: '/admin/api/deliveries/dlv_nope/redeliver', headers: auth }))
      .statusCode).toBe(404);
  });

  it('lists alerts newest first with their webhook name', async () => {
    const hook = await createWebhook(wp.core, { name: 'CRM', url: receiver.url, events: ['booking.created'] });
    const { deliveryId } = await seedDelivery(wp, hook.id, 'booking.created', 'failed');
    for (const [id, level, at] of [['alt_1', 'warning', '2026-03-01T12:00:00.000Z'],
      ['alt_2', 'critical', '2026-03-01T13:00:00.000Z']] as const) {
      await wp.core.db.insertInto('alerts')
        .values({ id, webhook_id: hook.id, delivery_id: deliveryId, level, recipient: 'ops@example.com',
        subject: `${level}: CRM failing`, body: 'details', status: 'stored', error: null, created_at: at }).execute();
    }
    const { body } = await get('/admin/api/alerts?perpage=1');
    expect(body.total).toBe(2);
    expect(body.items)
      .toEqual([{ id: 'alt_2', webhook_id: hook.id, webhook_name: 'CRM', delivery_id: deliveryId, level: 'critical',
      recipient: 'ops@example.com', subject: 'critical: CRM failing', body: 'details', status: 'stored', error: null,
      created_at: '2026-03-01T13:00:00.000Z' }]);
    expect((await get('/admin/api/alerts?page=2&perpage=1')).body.items[0].id).toBe('alt_1');
  });
});
