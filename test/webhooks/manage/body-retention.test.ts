// How long attempts keep the payload sent and the receiver's answer (payload_retention_days,
// response_retention_days, issue 34): pruning blanks only the old bodies, keeps the rows, walks on from where it
// stopped, follows each setting on its own; the log says what is no longer kept; redeliver still sends the event.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { newId } from '../../../src/ids.js';
import { createWebhook } from '../../../src/webhooks/manage.js';
import { getDelivery, redeliver } from '../../../src/webhooks/delivery-log.js';
import { pruneDeliveryLog } from '../../../src/webhooks/retention.js';
import { attemptDelivery } from '../../../src/webhooks/delivery/attempt.js';
import { adminHeaders, fakeClock, seedDelivery, startReceiver } from './fixtures.js';

const DAY = 86_400_000;
const PAYLOAD = '{"id":"evt_x","data":{"email":"ana@example.com"}}';

describe.each(DIALECTS)('payload and response retention on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let auth: Record<string, string>;
  const clock = fakeClock();

  beforeEach(async () => {
    clock.set(Date.parse('2026-01-01T00:00:00Z'));
    wp = await testWaypost({ dialect, clock, config: { logRetentionDays: 30 } });
    app = await wp.app();
    auth = await adminHeaders(wp);
  });
  afterEach(async () => wp.close());

  const putSettings = (payload: Record<string, unknown>) =>
    app.inject({ method: 'PUT', url: '/admin/api/settings', headers: auth, payload });

  /** A finished delivery with one attempt made now (its id carries the clock's time, as the worker's do). */
  async function delivered(webhookId: string) {
    const { deliveryId, eventId } = await seedDelivery(wp, webhookId, 'booking.created', 'succeeded');
    await wp.core.db.insertInto('delivery_attempts').values({
      id: newId('att', clock.now()), delivery_id: deliveryId, attempt: 1,
      started_at: new Date(clock.now()).toISOString(), duration_ms: 5, request_url: 'https://example.com/h',
      request_headers: '{"X-Waypost-Event":"booking.created"}',
      request_body: PAYLOAD, response_status: 200, response_headers: '{"x-crm":"1"}',
      response_body: '{"contact":"ana@example.com"}', error: null, success: 1,
    }).execute();
    return { deliveryId, eventId };
  }
  const attempt = async (deliveryId: string) => (await getDelivery(wp.core, deliveryId)).attempts[0];

  it('refuses retentions that are not whole days from 1 to the log retention, naming the field', async () => {
    for (const [field, value] of [
      ['payload_retention_days', 0], ['payload_retention_days', 'a week'], ['payload_retention_days', 31],
      ['response_retention_days', 2.5], ['response_retention_days', 3651],
    ] as const) {
      const res = await putSettings({ [field]: value });
      expect(res.statusCode, `${field} ${value}`).toBe(400);
      expect(res.json()).toMatchObject({ field, detail: expect.stringContaining('from 1 to the log retention (30)') });
    }
    // Within a longer log retention given in the same request; null returns to "as long as the delivery".
    const ok = await putSettings({ log_retention_days: 90, payload_retention_days: 60, response_retention_days: 7 });
    expect(ok.json()).toMatchObject({ log_retention_days: 90, payload_retention_days: 60, response_retention_days: 7 });
    const cleared = await putSettings({ payload_retention_days: null });
    expect(cleared.json()).toMatchObject({ payload_retention_days: null, response_retention_days: 7 });
  });

  it('blanks only bodies older than each setting, keeps the rows, and says so in the log', async () => {
    const hook = await createWebhook(wp.core, { name: 'CRM', url: 'https://example.com/h',
      events: ['booking.created'] });
    const old = await delivered(hook.id);
    clock.advance(5 * DAY);
    const middle = await delivered(hook.id);
    clock.advance(4 * DAY);
    const recent = await delivered(hook.id);
    clock.advance(DAY); // ages: 10, 5 and 1 days

    // Unset: bodies are kept as long as the delivery (today's behaviour).
    expect(await pruneDeliveryLog(wp.core)).toMatchObject({ payloads: 0, responses: 0 });
    expect((await putSettings({ payload_retention_days: 7, response_retention_days: 3 })).statusCode).toBe(200);
    expect(await pruneDeliveryLog(wp.core)).toMatchObject({ deliveries: 0, payloads: 1, responses: 2 });

    const o = await attempt(old.deliveryId);
    expect(o.request).toMatchObject({ body: '', pruned: 'Payload no longer kept (older than 7 days).' });
    expect(o.request.headers).toEqual({ 'X-Waypost-Event': 'booking.created' });
    expect(o.response).toMatchObject({ status: 200, body: '', headers: {},
      pruned: 'Response no longer kept (older than 3 days).' });
    const m = await attempt(middle.deliveryId);
    expect(m.request).toMatchObject({ body: PAYLOAD, pruned: null });
    expect(m.response).toMatchObject({ body: '', pruned: 'Response no longer kept (older than 3 days).' });
    const r = await attempt(recent.deliveryId);
    expect(r.request).toMatchObject({ body: PAYLOAD, pruned: null });
    expect(r.response)
      .toMatchObject({ body: '{"contact":"ana@example.com"}', headers: { 'x-crm': '1' }, pruned: null });
    // The rows stay: the log still lists all three.
    expect(await wp.core.db.selectFrom('delivery_attempts').select('id').execute()).toHaveLength(3);

    // Idempotent: the next run starts where this one stopped and finds nothing.
    expect(await pruneDeliveryLog(wp.core)).toMatchObject({ payloads: 0, responses: 0 });
    clock.advance(3 * DAY); // the middle one is now 8 days old, the recent one 4
    expect(await pruneDeliveryLog(wp.core)).toMatchObject({ payloads: 1, responses: 1 });
    expect((await attempt(middle.deliveryId)).request.pruned).toBe('Payload no longer kept (older than 7 days).');
    expect((await attempt(recent.deliveryId)).request.pruned).toBeNull();

    // The admin API shows the same note.
    const detail = await app.inject({ url: `/admin/api/deliveries/${old.deliveryId}`, headers: auth });
    expect(detail.json().attempts[0].request.pruned).toBe('Payload no longer kept (older than 7 days).');
  });

  it('follows each setting on its own, in batches past 500', async () => {
    const hook = await createWebhook(wp.core, { name: 'CRM', url: 'https://example.com/h',
      events: ['booking.created'] });
    for (let i = 0; i < 520; i++) {
      await delivered(hook.id);
      clock.advance(1000);
    }
    clock.advance(2 * DAY);
    await putSettings({ response_retention_days: 1 });
    expect(await pruneDeliveryLog(wp.core)).toMatchObject({ payloads: 0, responses: 520 });
    const bodies = await wp.core.db.selectFrom('delivery_attempts')
      .select(['request_body', 'response_body', 'response_headers']).execute();
    expect(bodies.every((b) => b.request_body === PAYLOAD && b.response_body === null && b.response_headers === null))
      .toBe(true);
  });

  it('redelivers a delivery whose payload is gone from the event, and refuses one whose event is gone', async () => {
    const receiver = await startReceiver();
    const hook = await createWebhook(wp.core, { name: 'CRM', url: receiver.url, events: ['booking.created'] });
    const old = await delivered(hook.id);
    clock.advance(10 * DAY);
    await putSettings({ payload_retention_days: 1 });
    await pruneDeliveryLog(wp.core);
    expect((await attempt(old.deliveryId)).request.body).toBe('');
    const again = await app.inject({ method: 'POST', url: `/admin/api/deliveries/${old.deliveryId}/redeliver`,
      headers: auth });
    expect(again.statusCode).toBe(201);
    expect(again.json()).toMatchObject({ event_id: old.eventId, redelivery_of: old.deliveryId, status: 'pending' });
    // Sent from the event, whole.
    expect(await attemptDelivery(wp.core, again.json().id)).toMatchObject({ status: 'succeeded' });
    await receiver.close();
    expect(JSON.parse(receiver.received[0].body)).toMatchObject({ id: old.eventId, data: { id: 1, status: 'booked' } });
    expect((await attempt(again.json().id)).request.body).toBe(receiver.received[0].body);

    // An event removed by hand (or erased) leaves nothing to send: a clear 409, not a 500.
    await wp.core.db.deleteFrom('deliveries').where('id', '=', again.json().id).execute();
    await wp.core.db.deleteFrom('events').where('id', '=', old.eventId).execute();
    await expect(redeliver(wp.core, old.deliveryId)).rejects.toMatchObject({ status: 409, code: 'event_gone' });
  });
});
