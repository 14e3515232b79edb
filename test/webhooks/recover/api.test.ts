// Recover: after a disable (which cancels pending deliveries) or an outage, POST /admin/api/webhooks/:id/recover
// redelivers, once, what failed or was cancelled since a time, to a real local receiver.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { startWorker, type Worker } from '../../../src/webhooks/index.js';
import { adminHeaders, fakeClock, seedDelivery, startReceiver, type Receiver } from '../manage/fixtures.js';
import { booking } from '../engine/fixtures.js';
import { seedFailed, waitForJob } from './fixtures.js';

describe.each(DIALECTS)('recovering deliveries on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let auth: Record<string, string>;
  let receiver: Receiver;
  let worker: Worker | null = null;
  const clock = fakeClock();

  beforeEach(async () => {
    clock.set(Date.parse('2026-03-01T12:00:00Z'));
    receiver = await startReceiver();
    wp = await testWaypost({ dialect, clock, config: { pollMs: 3_600_000 } });
    app = await wp.app();
    auth = await adminHeaders(wp);
  });
  afterEach(async () => {
    await worker?.stop();
    worker = null;
    await wp.close();
    await receiver.close();
  });

  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    app.inject({ method, url: `/admin/api${url}`, headers: auth,
      ...(payload === undefined ? {} : { payload: payload as object }) });
  const recover = async (id: string, body: unknown) => call('POST', `/webhooks/${id}/recover`, body);
  /** Starts a recover (202 with the job) and waits for it to end: answers the finished job's counts. */
  const recoverAll = async (id: string, body: unknown) => {
    const started = await recover(id, body);
    expect(started.statusCode, started.body).toBe(202);
    expect(started.headers.location).toBe(`/admin/api/webhooks/${id}/recover/${started.json().id}`);
    const job = await waitForJob(app, auth, id, started.json().id);
    return { status: job.status, total: job.total, queued: job.queued };
  };
  const eventIdsReceived = () => receiver.received.map((r) => JSON.parse(r.body).id as string).sort();

  it('redelivers what the disable cancelled once re-enabled, exactly once however often it is run', async () => {
    const hook = (await call('POST', '/webhooks', { name: 'CRM', url: receiver.url, events: ['booking.created'] }))
      .json();
    // Before the window: an old failure that recover must leave alone.
    const old = await seedDelivery(wp, hook.id, 'booking.created', 'failed');
    clock.advance(3_600_000);
    const since = new Date(clock.now()).toISOString();
    for (const id of [1041, 1042, 1043]) await wp.put('bookings', id, booking());
    const pending = (await call('GET', `/deliveries?webhook_id=${hook.id}&status=pending&perpage=1`)).json();
    expect(pending.total).toBe(3); // what the console's confirmation says will be cancelled

    await call('POST', `/webhooks/${hook.id}/disable`);
    const cancelled = (await call('GET', `/deliveries?webhook_id=${hook.id}&status=cancelled`)).json().items;
    expect(cancelled).toHaveLength(3);
    const refused = await recover(hook.id, { since });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toMatch(/re-enable/i);

    await call('POST', `/webhooks/${hook.id}/enable`);
    expect(await recoverAll(hook.id, { since, statuses: ['failed'] })).toEqual({ status: 'done', total: 0, queued: 0 });
    const first = await recoverAll(hook.id, { since, statuses: ['failed', 'cancelled'] });
    expect(first).toEqual({ status: 'done', total: 3, queued: 3 });
    expect(await recoverAll(hook.id, { since })).toEqual({ status: 'done', total: 0, queued: 0 }); // nothing twice

    worker = await startWorker(wp.core);
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(3);
    expect(eventIdsReceived()).toEqual(cancelled.map((d: { event_id: string }) => d.event_id).sort());
    await expect.poll(async () => (await call('GET', `/deliveries?webhook_id=${hook.id}&status=succeeded`)).json()
      .total).toBe(3);
    const redeliveries = (await call('GET', `/deliveries?webhook_id=${hook.id}&status=succeeded`)).json().items;
    expect(redeliveries.map((d: { redelivery_of: string }) => d.redelivery_of).sort())
      .toEqual(cancelled.map((d: { id: string }) => d.id).sort());
    expect((await recoverAll(hook.id, { since })).queued).toBe(0);
    expect((await call('GET', `/deliveries/${old.deliveryId}`)).json().status).toBe('failed');
    // The webhook's recent recovers, newest first, for the console.
    const list = (await call('GET', `/webhooks/${hook.id}/recover`)).json().items;
    expect(list.map((j: { queued: number; status: string }) => [j.status, j.queued]))
      .toEqual([['done', 0], ['done', 0], ['done', 3], ['done', 0]]);
    expect(receiver.received).toHaveLength(3);
  });

  it('recovers thousands of deliveries in one call, in batches, and none of them twice', async () => {
    const hook = (await call('POST', '/webhooks', { name: 'Bulk', url: receiver.url, events: ['booking.created'] }))
      .json();
    const since = new Date(clock.now()).toISOString();
    const n = 1_234;
    await seedFailed(wp, hook.id, n, since);
    const [a, b] = await Promise.all([recover(hook.id, { since }), recover(hook.id, { since })]);
    const ja = await waitForJob(app, auth, hook.id, a.json().id);
    const jb = await waitForJob(app, auth, hook.id, b.json().id);
    expect([ja.status, jb.status]).toEqual(['done', 'done']);
    expect(ja.queued + jb.queued).toBe(n); // two at once: each batch skips what the other one queued
    const pending = await wp.core.db.selectFrom('deliveries').select(['redelivery_of'])
      .where('status', '=', 'pending').execute();
    expect(pending).toHaveLength(n);
    expect(new Set(pending.map((p) => p.redelivery_of)).size).toBe(n);
  });

  it('answers 400 naming the field for bad input and 404 for an unknown webhook', async () => {
    const hook = (await call('POST', '/webhooks', { name: 'CRM', url: receiver.url, events: ['booking.created'] }))
      .json();
    for (const [body, field] of [[{}, 'since'], [{ since: 'yesterday' }, 'since'],
      [{ since: '2026-01-01T00:00:00Z', statuses: ['pending'] }, 'statuses'],
      [{ since: '2026-01-01T00:00:00Z', statuses: [], missed: false }, 'statuses'], // nothing asked for
      [{ since: '2026-01-01T00:00:00Z', missed: 1 }, 'missed'], [[1], '(body)']] as const) {
      const res = await recover(hook.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().field).toBe(field);
    }
    expect((await recover('wh_unknown', { since: '2026-01-01T00:00:00Z' })).statusCode).toBe(404);
    expect((await call('GET', `/webhooks/${hook.id}/recover/rcv_unknown`)).statusCode).toBe(404);
  });
});
