// The whole admin story with the real worker: a host write is delivered, a failing receiver exhausts the retries
// (short schedule), the webhook is auto-disabled and an alert stored; the admin sees it all in the API, cannot
// redeliver until re-enabling, then redelivers and the worker sends it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { adminHeaders, startReceiver, type Receiver } from './fixtures.js';

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const booking = {
  status: 'booked', currency: 'EUR', total_amount: '1250.00', paid_amount: '250.00',
  customer: { email: 'ana@example.com', first_name: 'Ana', last_name: 'Silva' },
  engine_version: '6.8.0', cart_version: '4.1',
};

describe.each(DIALECTS)('webhook lifecycle with the worker on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let auth: Record<string, string>;
  let receiver: Receiver;

  beforeEach(async () => {
    wp = await testWaypost({ dialect, config: { retryDelaysMs: [5, 5, 5, 5], pollMs: 20,
      alertEmail: 'ops@example.com' } });
    app = await wp.app();
    auth = await adminHeaders(wp);
    receiver = await startReceiver({ status: 500, body: 'down for maintenance' });
    await wp.serve('worker');
  });
  afterEach(async () => {
    await wp.close();
    await receiver.close();
  });

  it('auto-disabled after 5 failures, visible in the log and alerts, redelivered after re-enabling', async () => {
    const hook = (await app.inject({ method: 'POST', url: '/admin/api/webhooks', headers: auth,
      payload: { name: 'CRM', url: receiver.url, events: ['booking.created'] } })).json();
    const put = await app.inject({ method: 'PUT', url: '/host/v1/bookings/4242', headers: HOST_AUTH,
      payload: booking });
    expect(put.statusCode).toBe(201);

    const disabled = await until('auto-disable', async () => {
      const w = (await app.inject({ method: 'GET', url: `/admin/api/webhooks/${hook.id}`, headers: auth })).json();
      return !w.active && w;
    });
    expect(disabled.disabled_reason).toMatch(/5 consecutive failed attempts/);
    expect(disabled.last_delivery).toMatchObject({ status: 'failed', last_status: 500 });
    expect(receiver.received).toHaveLength(5);

    const log = (await app.inject({ method: 'GET', url: `/admin/api/deliveries?webhook_id=${hook.id}`, headers: auth }))
      .json();
    expect(log.total).toBe(1);
    const failed = log.items[0];
    expect(failed).toMatchObject({ event_type: 'booking.created', status: 'failed', attempts: 5, last_status: 500,
      test: false });
    const detail = (await app.inject({ method: 'GET', url: `/admin/api/deliveries/${failed.id}`, headers: auth }))
      .json();
    expect(detail.attempts.map((a: { attempt: number; response: { status: number } }) => [a.attempt,
      a.response.status])).toEqual([[1, 500], [2, 500], [3, 500], [4, 500], [5, 500]]);
    expect(detail.event.data).toMatchObject({ id: 4242, total_amount: '1250.00' });

    const alerts = await until('the critical alert', async () => {
      const page = (await app.inject({ method: 'GET', url: '/admin/api/alerts', headers: auth })).json();
      return page.items.some((a: { level: string }) => a.level === 'critical') && page;
    });
    expect(alerts.items.every((a: { webhook_name: string; status: string }) => a.webhook_name === 'CRM'
      && a.status === 'stored')).toBe(true);

    // A new booking while disabled is not delivered, and redeliver is refused until the admin re-enables.
    await app.inject({ method: 'PUT', url: '/host/v1/bookings/4243', headers: HOST_AUTH, payload: booking });
    expect((await app.inject({ method: 'GET', url: `/admin/api/deliveries?webhook_id=${hook.id}`, headers: auth }))
      .json().total).toBe(1);
    const refused = await app.inject({ method: 'POST', url: `/admin/api/deliveries/${failed.id}/redeliver`,
      headers: auth });
    expect(refused.statusCode).toBe(409);

    receiver.answer = { status: 200, body: 'ok' };
    expect((await app.inject({ method: 'POST', url: `/admin/api/webhooks/${hook.id}/enable`, headers: auth })).json())
      .toMatchObject({ active: true, disabled_reason: null });
    const redo = await app.inject({ method: 'POST', url: `/admin/api/deliveries/${failed.id}/redeliver`,
      headers: auth });
    expect(redo.statusCode).toBe(201);
    const done = await until('the redelivery', async () => {
      const d = (await app.inject({ method: 'GET', url: `/admin/api/deliveries/${redo.json().id}`, headers: auth }))
        .json();
      return d.status === 'succeeded' && d;
    });
    expect(done).toMatchObject({ redelivery_of: failed.id, event_id: failed.event_id, attempt_count: 1,
      last_status: 200 });
    const last = receiver.received.at(-1)!;
    expect(JSON.parse(last.body).id).toBe(failed.event_id);
    expect(last.headers['x-waypost-delivery']).toBe(redo.json().id);
  });
});
