// Nothing missed while a webhook was off (issue 35): a booking written while the webhook is disabled reaches the
// receiver after re-enable + recover, once, in its record's order; events outside the off period, of other types,
// filtered out, or already delivered are not sent, and a second recover (or two at once) sends nothing twice.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { FakeClock } from '../../helpers/clock.js';
import type { Waypost } from '../../../src/sdk.js';
import { DeliveryWorker } from '../../../src/webhooks/index.js';
import { recordEvent } from '../../../src/webhooks/outbox.js';
import { adminHeaders, startReceiver, type Receiver } from '../manage/fixtures.js';
import { booking, fakeClock } from '../engine/fixtures.js';
import { waitForJob } from './fixtures.js';

const MINUTE = 60_000;

describe.each(DIALECTS)('events missed while disabled on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let auth: Record<string, string>;
  let receiver: Receiver;
  let clock: FakeClock;

  beforeEach(async () => {
    clock = fakeClock();
    wp = await testWaypost({ dialect, clock });
    app = await wp.app();
    auth = await adminHeaders(wp);
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
    await wp.close();
  });

  const call = async (method: 'GET' | 'POST', url: string, payload?: unknown) => {
    const res = await app.inject({ method, url: `/admin/api${url}`, headers: auth, payload: payload as object });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  };
  const recover = async (hookId: string, since: string) => {
    const job = await call('POST', `/webhooks/${hookId}/recover`, { since });
    return waitForJob(app, auth, hookId, job.id);
  };
  const sent = () => receiver.received.map((r) => {
    const body = JSON.parse(r.body) as { type: string; data: { id: number; total_amount: string } };
    return `${body.type} ${body.data.id} ${body.data.total_amount}`;
  });
  const drain = () => new DeliveryWorker(wp.core).drain();

  /** An EUR-only ordered webhook; booking 7000 delivered, then: disabled, six events, re-enabled. */
  async function offAndOn(): Promise<{ hookId: string; start: string; enabled: Record<string, unknown> }> {
    const start = new Date(clock.now()).toISOString();
    const hook = await call('POST', '/webhooks', { name: 'CRM', url: receiver.url, ordering: 'record',
      events: ['booking.created', 'booking.updated'], filter: { field: 'data.currency', eq: 'EUR' } });
    await wp.put('bookings', 7000, booking());
    // Stored before the period and sent nowhere: outside it, so never sent by a recover.
    await recordEvent(wp.core.db, wp.core, { type: 'booking.created', resource: 'bookings', recordId: 6999,
      data: { id: 6999 } });
    await drain();
    expect(sent()).toEqual(['booking.created 7000 1250.00']);
    clock.advance(MINUTE);
    await call('POST', `/webhooks/${hook.id}/disable`);
    clock.advance(MINUTE);
    await wp.put('bookings', 7001, booking({ total_amount: '100.00' })); // missed
    clock.advance(1);
    await wp.put('bookings', 7001, booking({ total_amount: '200.00' })); // missed: after the one above
    await wp.put('bookings', 7000, booking({ total_amount: '300.00' })); // missed
    await wp.put('bookings', 7002, booking({ currency: 'USD' })); // filtered out
    await wp.put('customers', 50, { email: 'ana@example.com', first_name: 'Ana' }); // not its type
    await recordEvent(wp.core.db, wp.core, { type: 'booking.created', resource: 'bookings', recordId: 7004,
      data: { id: 7004, currency: 'EUR' }, test: true }); // a test sample: never a missed event
    receiver.received.length = 0;
    clock.advance(MINUTE);
    const enabled = await call('POST', `/webhooks/${hook.id}/enable`);
    clock.advance(10 * MINUTE);
    await wp.put('bookings', 7003, booking()); // after: delivered as usual
    return { hookId: hook.id, start, enabled };
  }

  it('re-enable counts them; recover sends each once, in its record\'s order; a second one sends none',
    async () => {
    const { hookId, start, enabled } = await offAndOn();
    expect(enabled.missed_while_disabled).toMatchObject({ events: 3, more: false });
    const job = await recover(hookId, start);
    expect(job).toMatchObject({ status: 'done', total: 3, queued: 3, missed: true, missed_total: 3, missed_queued: 3 });
    await drain();
    const got = sent();
    expect([...got].sort()).toEqual(['booking.created 7001 100.00', 'booking.created 7003 1250.00',
      'booking.updated 7000 300.00', 'booking.updated 7001 200.00']);
    expect(got.indexOf('booking.created 7001 100.00')).toBeLessThan(got.indexOf('booking.updated 7001 200.00'));
    // `waypost deliveries list --record 7001` shows them.
    const log = await call('GET', '/deliveries?record_id=7001');
    expect(log.items.map((d: { event_type: string; status: string }) => `${d.event_type} ${d.status}`).sort())
      .toEqual(['booking.created succeeded', 'booking.updated succeeded']);

    receiver.received.length = 0;
    expect(await recover(hookId, start)).toMatchObject({ status: 'done', total: 0, queued: 0, missed_total: 0 });
    await drain();
    expect(sent()).toEqual([]);
  });

  it('two recovers at once queue each missed event once', async () => {
    const { hookId, start } = await offAndOn();
    const [a, b] = await Promise.all([
      call('POST', `/webhooks/${hookId}/recover`, { since: start }),
      call('POST', `/webhooks/${hookId}/recover`, { since: start }),
    ]);
    const jobs = [await waitForJob(app, auth, hookId, a.id), await waitForJob(app, auth, hookId, b.id)];
    expect(jobs.map((j) => j.status)).toEqual(['done', 'done']);
    expect(jobs.reduce((n, j) => n + j.queued, 0)).toBe(3);
    await drain();
    expect(sent().filter((s) => !s.includes('7003')).sort()).toEqual(['booking.created 7001 100.00',
      'booking.updated 7000 300.00', 'booking.updated 7001 200.00']);
  });

  it('sends none when asked only to redeliver (missed: false), nor from before the recover\'s time', async () => {
    const { hookId } = await offAndOn();
    const only = await call('POST', `/webhooks/${hookId}/recover`, { since: new Date(0).toISOString(),
      missed: false });
    expect(await waitForJob(app, auth, hookId, only.id)).toMatchObject({ total: 0, missed: false });
    // Since after the off period: nothing it missed is that recent.
    expect(await recover(hookId, new Date(clock.now()).toISOString())).toMatchObject({ total: 0 });
    const bad = await app.inject({ method: 'POST', url: `/admin/api/webhooks/${hookId}/recover`, headers: auth,
      payload: { since: new Date(0).toISOString(), missed: 'yes' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ field: 'missed' });
  });

  it('counts an auto-disable as an off period too', async () => {
    const hook = await call('POST', '/webhooks', { name: 'CRM', url: receiver.url, events: ['booking.created'] });
    const { disableWebhook } = await import('../../../src/webhooks/disable.js');
    await disableWebhook(wp.core.db, wp.core, hook.id, 'the last attempt failed');
    clock.advance(MINUTE);
    await wp.put('bookings', 7001, booking());
    clock.advance(MINUTE);
    expect((await call('POST', `/webhooks/${hook.id}/enable`)).missed_while_disabled).toMatchObject({ events: 1 });
    expect(await recover(hook.id, new Date(0).toISOString())).toMatchObject({ missed_queued: 1 });
    await drain();
    expect(sent()).toEqual(['booking.created 7001 1250.00']);
  });

  it('keeps an off period as long as its events are kept', async () => {
    const { hookId } = await offAndOn();
    const periods = () => wp.core.db.selectFrom('webhook_off_periods').select(['on_at'])
      .where('webhook_id', '=', hookId).execute();
    expect(await periods()).toHaveLength(1);
    const { pruneDeliveryLog } = await import('../../../src/webhooks/retention.js');
    await pruneDeliveryLog(wp.core);
    expect(await periods()).toHaveLength(1);
    clock.advance((wp.core.config.eventRetentionDays + 1) * 24 * 60 * MINUTE);
    await pruneDeliveryLog(wp.core);
    expect(await periods()).toEqual([]);
  });
});
