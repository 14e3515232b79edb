// Per-record order (`ordering: record`, issue 36): a record's events reach the receiver in commit order. While an
// earlier delivery of a record is retried, the later ones of that record wait and other records go on; the end of
// a delivery (success, given up, cancelled) makes the next one due. Unordered webhooks are not held back.
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabaseUrl } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import { createWaypost, type Waypost } from '../../../src/sdk.js';
import { createLogger } from '../../../src/log.js';
import { DeliveryWorker } from '../../../src/webhooks/index.js';
import { createWebhook, enableWebhook, updateWebhook } from '../../../src/webhooks/manage.js';
import { deliveryQueue } from '../../../src/webhooks/delivery/queue/index.js';
import { startReceiver, type Receiver } from './receiver.js';
import { outOfOrder, versionOf } from './versions.js';
import { addWebhook, booking, fakeClock } from './fixtures.js';

const MINUTE = 60_000;
const EVENTS = ['booking.created', 'booking.updated'];

const put = (wp: Waypost, id: number, version: number) =>
  wp.put('bookings', id, booking({ total_amount: `${version}.00` }));

describe.each(DIALECTS)('per-record order on %s', (dialect) => {
  let wp: Waypost | null = null;
  let receiver: Receiver | null = null;
  const others: Waypost[] = [];
  afterEach(async () => {
    for (const o of others.splice(0)) await o.close();
    await wp?.close();
    await receiver?.close();
  });

  it('is set per webhook: none by default, record on request, anything else a 400 naming the field', async () => {
    wp = await testWaypost({ dialect });
    const input = { name: 'CRM', url: 'https://crm.example.com/in', events: EVENTS };
    expect((await createWebhook(wp.core, input)).ordering).toBe('none');
    const ordered = await createWebhook(wp.core, { ...input, ordering: 'record' });
    expect(ordered.ordering).toBe('record');
    await expect(createWebhook(wp.core, { ...input, ordering: 'booking' })).rejects
      .toMatchObject({ status: 400, extra: { field: 'ordering' } });
    expect((await updateWebhook(wp.core, ordered.id, { ordering: 'none' })).ordering).toBe('none');
    await expect(updateWebhook(wp.core, ordered.id, { ordering: null })).rejects.toMatchObject({ status: 400 });
  });

  it('holds a record\'s second update while its first is retried, then sends it after; other records go on',
    async () => {
    const clock = fakeClock();
    wp = await testWaypost({ dialect, clock });
    // The first attempt of booking 101's creation fails; everything else is accepted.
    receiver = await startReceiver((req, res) => {
      const { id, version } = versionOf(req);
      const first = req.headers['x-waypost-attempt'] === '1';
      res.writeHead(id === 101 && version === 1 && first ? 500 : 200).end();
    });
    const ordered = await addWebhook(wp.core, `${receiver.url}/ordered`, { events: EVENTS, ordering: 'record' });
    await addWebhook(wp.core, `${receiver.url}/unordered`, { events: EVENTS });
    await put(wp, 101, 1);
    await put(wp, 101, 2);
    await put(wp, 102, 1);
    const worker = new DeliveryWorker(wp.core);
    await worker.drain();

    const seen = (path: string) => receiver!.requests.filter((r) => r.path === `/hook/${path}`)
      .map((r) => `${versionOf(r).id}v${versionOf(r).version}`);
    expect(seen('ordered').sort()).toEqual(['101v1', '102v1']); // 101v2 waits; 102 is not held up
    expect(seen('unordered').sort()).toEqual(['101v1', '101v2', '102v1']); // unordered: nothing waits
    const waiting = await wp.core.db.selectFrom('deliveries').selectAll().where('webhook_id', '=', ordered.id)
      .where('status', '=', 'pending').orderBy('id').execute();
    expect(waiting.map((d) => [d.attempts, d.next_attempt_at === null, d.waits_for])).toEqual([
      [1, false, null], [0, true, waiting[0].id],
    ]);

    clock.advance(MINUTE); // the retry is due
    await worker.drain();
    expect(seen('ordered').slice(2)).toEqual(['101v1', '101v2']); // the retry, then the update that waited
    const ordered101 = receiver.requests.filter((r) => r.path === '/hook/ordered' && versionOf(r).id === 101);
    expect(ordered101.map((r) => versionOf(r).version)).toEqual([1, 1, 2]);
    const left = await wp.core.db.selectFrom('deliveries').select('status').where('status', '!=', 'succeeded')
      .execute();
    expect(left).toEqual([]);
  });

  it('makes the next delivery due when an earlier one of the record is given up or cancelled', async () => {
    const clock = fakeClock();
    wp = await testWaypost({ dialect, clock });
    const hook = await addWebhook(wp.core, 'http://127.0.0.1:9/never', { events: EVENTS, ordering: 'record' });
    for (let v = 1; v <= 3; v++) await put(wp, 7, v);
    const rows = () => wp!.core.db.selectFrom('deliveries').selectAll().where('webhook_id', '=', hook.id)
      .orderBy('id').execute();
    const [first, second, third] = await rows();
    expect([second.waits_for, third.waits_for]).toEqual([first.id, second.id]);
    const queue = deliveryQueue(wp.core);
    const now = new Date(clock.now()).toISOString();
    const attempt = (id: string) => ({
      id: `att_${id}`, delivery_id: id, attempt: 5, started_at: now, duration_ms: 1, request_url: 'http://x',
      request_headers: '{}', request_body: '{}', response_status: 500, response_headers: null, response_body: null,
      error: 'HTTP 500', success: 0,
    });
    // Given up (the last attempt failed; the webhook stays enabled here): the second is due now.
    await queue.recordFailure({ attempt: attempt(first.id), status: 'failed', nextAttemptAt: null, now, disable: null,
      webhookId: hook.id,
      chain: { webhookId: hook.id, orderKey: 'bookings:7' } });
    let [, s2, s3] = await rows();
    expect([s2.next_attempt_at, s2.waits_for, s3.next_attempt_at]).toEqual([clock.now(), null, null]);
    // Cancelled (its event was deleted, say): the third is due.
    await queue.cancel(second.id, 'event no longer exists', now, { webhookId: hook.id, orderKey: 'bookings:7' });
    [, s2, s3] = await rows();
    expect([s2.status, s3.next_attempt_at, s3.waits_for]).toEqual(['cancelled', clock.now(), null]);
  });

  it('sends a record\'s later events after its earlier ones once the webhook gives one up and is re-enabled',
    async () => {
    const clock = fakeClock();
    wp = await testWaypost({ dialect, clock, config: { retryDelaysMs: [MINUTE] } });
    receiver = await startReceiver((req, res) => { res.writeHead(versionOf(req).version === 1 ? 500 : 200).end(); });
    const hook = await addWebhook(wp.core, receiver.url, { events: EVENTS, ordering: 'record' });
    await put(wp, 7, 1);
    await put(wp, 7, 2);
    const worker = new DeliveryWorker(wp.core);
    await worker.drain();
    clock.advance(MINUTE);
    await worker.drain(); // attempt 2 of 2 fails: given up, the webhook is disabled and its pending cancelled
    expect(receiver.requests.map((r) => versionOf(r).version)).toEqual([1, 1]);
    const statuses = await wp.core.db.selectFrom('deliveries').select('status').orderBy('id').execute();
    expect(statuses.map((d) => d.status)).toEqual(['failed', 'cancelled']);
    await enableWebhook(wp.core, hook.id);
    await put(wp, 7, 3); // nothing pending in the record's chain: due at once
    await worker.drain();
    expect(receiver.requests.map((r) => versionOf(r).version)).toEqual([1, 1, 3]);
  });

  it.runIf(dialect === 'postgres')('keeps each record in order across three processes\' workers', { timeout: 60_000 },
    async () => {
    const databaseUrl = await freshDatabaseUrl(dialect);
    const config = { databaseUrl, retryDelaysMs: [100, 100, 100, 100], pollMs: 20, deliveryConcurrency: 8 };
    const env = { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' };
    const make = () => createWaypost({ env, config, logger: createLogger('silent') });
    wp = await make();
    // Every third version's first attempt fails: its record's later versions must wait for its retry.
    receiver = await startReceiver((req, res) => {
      const fail = versionOf(req).version % 3 === 1 && req.headers['x-waypost-attempt'] === '1';
      setTimeout(() => res.writeHead(fail ? 503 : 200).end(), Math.floor(Math.random() * 8));
    });
    await addWebhook(wp.core, receiver.url, { events: EVENTS, ordering: 'record' });
    const RECORDS = 12;
    const VERSIONS = 8;
    // Every version is queued before the workers start: unordered, they would all be sent at once.
    for (let v = 1; v <= VERSIONS; v++) {
      for (let id = 1; id <= RECORDS; id++) await put(wp, id, v);
    }
    for (let i = 0; i < 3; i++) others.push(await make());
    const workers = others.map((o) => new DeliveryWorker(o.core).start());
    const deadline = Date.now() + 45_000;
    const pending = async () => Number((await wp!.core.db.selectFrom('deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n')).where('status', '!=', 'succeeded')
      .executeTakeFirstOrThrow()).n);
    while (Date.now() < deadline && (await pending()) > 0) await new Promise((r) => setTimeout(r, 100));
    for (const w of workers) await w.stop();
    expect(await pending()).toBe(0);
    expect(outOfOrder(receiver.requests)).toEqual([]);
    const succeeded = new Set(receiver.requests.map((r) => `${versionOf(r).id}v${versionOf(r).version}`));
    expect(succeeded.size).toBe(RECORDS * VERSIONS);
  });
});
