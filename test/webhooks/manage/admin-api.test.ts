import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { adminHeaders, closeAdminSuite, openAdminSuite, seedDelivery, type Receiver } from './fixtures.js';

const hook = (over: Record<string, unknown> = {}) => ({ name: 'Bookings to CRM', url: 'https://crm.example.com/hooks',
  events: ['booking.created', 'booking.updated'], ...over });

describe.each(DIALECTS)('webhooks admin API on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let auth: Record<string, string>;
  let receiver: Receiver;

  beforeEach(async () => ({ wp, app, auth, receiver } = await openAdminSuite(dialect)));
  afterEach(async () => closeAdminSuite({ wp, receiver }));

  const create = async (over: Record<string, unknown> = {}) => {
    const res = await app.inject({ method: 'POST', url: '/admin/api/webhooks', headers: auth,
      payload: hook({ url: receiver.url, ...over }) });
    expect(res.statusCode).toBe(201);
    return res.json();
  };

  it('refuses requests without the admin token or with a wrong one', async () => {
    const none = await app.inject({ method: 'GET', url: '/admin/api/webhooks' });
    expect(none.statusCode).toBe(401);
    expect(none.headers['content-type']).toContain('application/problem+json');
    const wrong = await app.inject({ method: 'POST', url: '/admin/api/webhooks',
      headers: { authorization: 'Bearer wpa_wrong' }, payload: hook() });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().code).toBe('invalid_admin_token');
    expect(await wp.core.db.selectFrom('webhooks').selectAll().execute()).toHaveLength(0);
  });

  it('lists the 10 event types with labels for the console', async () => {
    const res = await app.inject({ method: 'GET', url: '/admin/api/event-types', headers: auth });
    const types = res.json() as Array<{ type: string; label: string; description: string }>;
    expect(types.map((t) => t.type))
      .toEqual(['booking.created', 'booking.updated', 'booking.canceled', 'booking.completed',
        'booking.payment.completed', 'booking.due.payment.completed', 'customer.created', 'customer.erased',
        'enquiry.created', 'review.created']);
    expect(types.find((t) => t.type === 'enquiry.created')?.label).toBe('Enquiry Created');
    expect(types.every((t) => t.description.length > 10)).toBe(true);
  });

  it('creates a webhook with a generated secret shown on creation only, and warns about http://', async () => {
    const created = await create();
    expect(created)
      .toMatchObject({ name: 'Bookings to CRM', url: receiver.url, events: ['booking.created', 'booking.updated'],
      active: true, disabled_reason: null, last_delivery: null });
    expect(created.id).toMatch(/^wh_/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
    expect(created.warning).toContain('http://');

    const list = await app.inject({ method: 'GET', url: '/admin/api/webhooks', headers: auth });
    expect(list.json()).toHaveLength(1);
    expect(list.json()[0]).not.toHaveProperty('secret');
    expect(list.body).not.toContain(created.secret);
    const one = await app.inject({ method: 'GET', url: `/admin/api/webhooks/${created.id}`, headers: auth });
    expect(one.json()).toMatchObject({ id: created.id, name: 'Bookings to CRM' });
    expect(one.body).not.toContain(created.secret);

    const other = await create({ url: 'https://crm.example.com/hooks' });
    expect(other.warning).toBeNull();
    expect(other.secret).not.toBe(created.secret);
  });

  it('rejects invalid webhooks with 400 naming the field, and saves nothing', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'ftp://example.com/x' }, 'url'],
      [{ url: 'https://user:pw@example.com/x' }, 'url'],
      [{ events: [] }, 'events'],
      [{ events: ['booking.deleted'] }, 'events'],
      [{ events: 'booking.created' }, 'events'],
      [{ active: 'yes' }, 'active'],
      [{ secret: 'whsec_mine' }, 'secret'],
    ];
    for (const [over, field] of cases) {
      const res = await app.inject({ method: 'POST', url: '/admin/api/webhooks', headers: auth, payload: hook(over) });
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().field, JSON.stringify(over)).toBe(field);
    }
    const missing = await app.inject({ method: 'POST', url: '/admin/api/webhooks', headers: auth,
      payload: { name: 'x', events: ['booking.created'] } });
    expect(missing.json()).toMatchObject({ status: 400, field: 'url' });
    expect(await wp.core.db.selectFrom('webhooks').selectAll().execute()).toHaveLength(0);
  });

  it('refuses private and loopback targets when private targets are not allowed', async () => {
    const strict = await testWaypost({ dialect, config: { allowPrivateTargets: false } });
    try {
      const sApp = await strict.app();
      const sAuth = await adminHeaders(strict);
      for (const url of ['http://127.0.0.1:8080/x', 'http://169.254.169.254/latest/meta-data', 'https://10.1.2.3/hook',
        'http://[::1]/x']) {
        const res = await sApp.inject({ method: 'POST', url: '/admin/api/webhooks', headers: sAuth,
          payload: hook({ url }) });
        expect(res.statusCode, url).toBe(400);
        expect(res.json(), url).toMatchObject({ code: 'private_target', field: 'url' });
      }
      const ok = await sApp.inject({ method: 'POST', url: '/admin/api/webhooks', headers: sAuth,
        payload: hook({ url: 'https://93.184.215.14/hook' }) });
      expect(ok.statusCode).toBe(201);
      const patched = await sApp.inject({ method: 'PATCH', url: `/admin/api/webhooks/${ok.json().id}`, headers: sAuth,
        payload: { url: 'http://192.168.1.5/' } });
      expect(patched.json()).toMatchObject({ status: 400, code: 'private_target', field: 'url' });
    } finally {
      await strict.close();
    }
  });

  it('reveals and rotates the secret; the old one is gone after rotation', async () => {
    const created = await create();
    const revealed = await app.inject({ method: 'GET', url: `/admin/api/webhooks/${created.id}/secret`,
      headers: auth });
    expect(revealed.json()).toEqual({ secret: created.secret });
    expect(revealed.headers['cache-control']).toBe('no-store');
    const rotated = await app.inject({ method: 'POST', url: `/admin/api/webhooks/${created.id}/secret/rotate`,
      headers: auth });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().secret).toMatch(/^whsec_/);
    expect(rotated.json().secret).not.toBe(created.secret);
    const again = await app.inject({ method: 'GET', url: `/admin/api/webhooks/${created.id}/secret`, headers: auth });
    expect(again.json().secret).toBe(rotated.json().secret);
    expect((await app.inject({ method: 'GET', url: '/admin/api/webhooks/wh_nope/secret', headers: auth })).statusCode)
      .toBe(404);
  });

  it('updates name, URL and events without losing the delivery history', async () => {
    const created = await create();
    const { deliveryId } = await seedDelivery(wp, created.id, 'booking.created', 'succeeded');
    const res = await app.inject({ method: 'PATCH', url: `/admin/api/webhooks/${created.id}`, headers: auth,
      payload: { name: 'Renamed', events: ['enquiry.created', 'booking.created', 'enquiry.created'],
      url: 'https://example.org/in' } });
    expect(res.statusCode).toBe(200);
    expect(res.json())
      .toMatchObject({ id: created.id, name: 'Renamed', url: 'https://example.org/in',
      events: ['booking.created', 'enquiry.created'], active: true, warning: null });
    expect(res.json().last_delivery).toMatchObject({ id: deliveryId, status: 'succeeded', last_status: 200 });
    const log = await app.inject({ method: 'GET', url: `/admin/api/deliveries?webhook_id=${created.id}`,
      headers: auth });
    expect(log.json().items.map((d: { id: string }) => d.id)).toEqual([deliveryId]);
    expect(log.json().items[0].webhook_name).toBe('Renamed');
    const bad = await app.inject({ method: 'PATCH', url: `/admin/api/webhooks/${created.id}`, headers: auth,
      payload: { events: [] } });
    expect(bad.json()).toMatchObject({ status: 400, field: 'events' });
    expect((await app.inject({ method: 'PATCH', url: '/admin/api/webhooks/wh_missing', headers: auth,
      payload: { name: 'x' } })).statusCode).toBe(404);
  });

  it('disabling cancels pending deliveries with a reason; enabling clears the reason and keeps the history',
    async () => {
    const created = await create();
    const done = await seedDelivery(wp, created.id, 'booking.created', 'succeeded');
    const pending = await seedDelivery(wp, created.id, 'booking.updated');

    const disabled = await app.inject({ method: 'POST', url: `/admin/api/webhooks/${created.id}/disable`,
      headers: auth });
    expect(disabled.json()).toMatchObject({ active: false });
    expect(disabled.json().disabled_reason).toMatch(/admin/i);
    const cancelled = await app.inject({ method: 'GET', url: `/admin/api/deliveries/${pending.deliveryId}`,
      headers: auth });
    expect(cancelled.json()).toMatchObject({ status: 'cancelled', next_attempt_at: null });
    expect(cancelled.json().cancel_reason).toMatch(/disabled/i);

    const enabled = await app.inject({ method: 'POST', url: `/admin/api/webhooks/${created.id}/enable`,
      headers: auth });
    expect(enabled.json()).toMatchObject({ active: true, disabled_reason: null });
    const log = await app.inject({ method: 'GET', url: `/admin/api/deliveries?webhook_id=${created.id}`,
      headers: auth });
    expect(log.json().items.map((d: { id: string; status: string }) => [d.id, d.status]))
      .toEqual([[pending.deliveryId, 'cancelled'], [done.deliveryId, 'succeeded']]);

    // PATCH active:false/true is the same as the action endpoints.
    const viaPatch = await app.inject({ method: 'PATCH', url: `/admin/api/webhooks/${created.id}`,
      headers: { ...auth, 'content-type': 'application/json' }, payload: { active: false } });
    expect(viaPatch.json()).toMatchObject({ active: false });
  });

  it('accepts action requests that send Content-Type: application/json with an empty body', async () => {
    const created = await create();
    const res = await app.inject({ method: 'POST', url: `/admin/api/webhooks/${created.id}/disable`,
      headers: { ...auth, 'content-type': 'application/json' }, body: '' });
    expect(res.statusCode).toBe(200);
    const broken = await app.inject({ method: 'POST', url: '/admin/api/webhooks',
      headers: { ...auth, 'content-type': 'application/json' }, body: '{"name":' });
    expect(broken.statusCode).toBe(400);
  });

  it('deletes softly: gone from the list, pending deliveries cancelled, the log keeps its history', async () => {
    const created = await create();
    const done = await seedDelivery(wp, created.id, 'booking.created', 'failed');
    const pending = await seedDelivery(wp, created.id, 'booking.created');
    const del = await app.inject({ method: 'DELETE', url: `/admin/api/webhooks/${created.id}`, headers: auth });
    expect(del.statusCode).toBe(204);
    expect((await app.inject({ method: 'GET', url: `/admin/api/webhooks/${created.id}`, headers: auth })).statusCode)
      .toBe(404);
    expect((await app.inject({ method: 'GET', url: '/admin/api/webhooks', headers: auth })).json()).toEqual([]);
    expect((await app.inject({ method: 'DELETE', url: `/admin/api/webhooks/${created.id}`, headers: auth })).statusCode)
      .toBe(404);

    const log = await app.inject({ method: 'GET', url: `/admin/api/deliveries?webhook_id=${created.id}`,
      headers: auth });
    expect(log.json().total).toBe(2);
    const byId = Object.fromEntries(log.json().items.map((d: { id: string }) => [d.id, d]));
    expect(byId[done.deliveryId]).toMatchObject({ status: 'failed', webhook_name: 'Bookings to CRM' });
    expect(byId[pending.deliveryId]).toMatchObject({ status: 'cancelled' });
    const redo = await app.inject({ method: 'POST', url: `/admin/api/deliveries/${done.deliveryId}/redeliver`,
      headers: auth });
    expect(redo.statusCode).toBe(409);
    expect(redo.json().code).toBe('webhook_deleted');
  });

  it('"test" sends a sample event to a real receiver and returns its answer', async () => {
    const created = await create({ events: ['enquiry.created'] });
    receiver.answer = { status: 200, body: '{"received":"yes"}', headers: { 'x-receiver': 'crm' } };
    const res = await app.inject({ method: 'POST', url: `/admin/api/webhooks/${created.id}/test`, headers: auth });
    expect(res.statusCode).toBe(200);
    const result = res.json();
    expect(result).toMatchObject({ success: true, error: null, response: { status: 200, body: '{"received":"yes"}' } });
    expect(result.response.headers['x-receiver']).toBe('crm');
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
    expect(receiver.received).toHaveLength(1);
    const sent = JSON.parse(receiver.received[0].body);
    expect(sent).toMatchObject({ id: result.event_id, type: 'enquiry.created',
      data: { full_name: expect.any(String), email: expect.stringContaining('@') } });
    expect(receiver.received[0].headers['x-waypost-delivery']).toBe(result.delivery_id);

    const log = await app.inject({ method: 'GET', url: `/admin/api/deliveries/${result.delivery_id}`, headers: auth });
    expect(log.json())
      .toMatchObject({ status: 'succeeded', test: true, event: { id: result.event_id, type: 'enquiry.created' } });

    receiver.answer = { status: 503, body: 'maintenance' };
    const failed = await app.inject({ method: 'POST', url: `/admin/api/webhooks/${created.id}/test`, headers: auth,
      payload: { event_type: 'review.created' } });
    expect(failed.json()).toMatchObject({ success: false, response: { status: 503, body: 'maintenance' } });
    expect(failed.json().error).toContain('503');
    expect(JSON.parse(receiver.received[1].body).type).toBe('review.created');
    // A test is tried once: no retry is scheduled.
    const detail = await app.inject({ method: 'GET', url: `/admin/api/deliveries/${failed.json().delivery_id}`,
      headers: auth });
    expect(detail.json()).toMatchObject({ status: 'failed', next_attempt_at: null, attempt_count: 1 });
    const bad = await app.inject({ method: 'POST', url: `/admin/api/webhooks/${created.id}/test`, headers: auth,
      payload: { event_type: 'nope' } });
    expect(bad.json()).toMatchObject({ status: 400, field: 'event_type' });
  });

  it('every event type has a sample whose payload a receiver gets', async () => {
    const types = (await app.inject({ method: 'GET', url: '/admin/api/event-types', headers: auth })).json()
      .map((t: { type: string }) => t.type);
    const created = await create({ events: types });
    for (const type of types) {
      const res = await app.inject({ method: 'POST', url: `/admin/api/webhooks/${created.id}/test`, headers: auth,
        payload: { event_type: type } });
      expect(res.json().success, type).toBe(true);
    }
    expect(receiver.received.map((r) => JSON.parse(r.body).type)).toEqual(types);
    expect(receiver.received.every((r) => typeof JSON.parse(r.body).data.id === 'number')).toBe(true);
  });
});
