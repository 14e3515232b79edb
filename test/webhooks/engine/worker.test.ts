// The worker: concurrent workers never deliver the same delivery twice while leases hold, graceful shutdown
// finishes quick attempts and releases stuck ones, and a test sample reaches a disabled webhook.
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabaseUrl } from '../../helpers/db.js';
import { createWaypost, type Waypost } from '../../../src/sdk.js';
import { createLogger } from '../../../src/log.js';
import { testWaypost } from '../../helpers/waypost.js';
import { DeliveryWorker } from '../../../src/webhooks/index.js';
import { queueDelivery, recordEvent } from '../../../src/webhooks/outbox.js';
import { startReceiver, type Receiver } from './receiver.js';
import { addWebhook, startSmtp } from './fixtures.js';

const enquiry = { full_name: 'Cy Young', email: 'cy@example.com' };

describe.each(DIALECTS)('delivery worker on %s', (dialect) => {
  const opened: Waypost[] = [];
  let receiver: Receiver;
  afterEach(async () => {
    for (const wp of opened.splice(0)) await wp.close();
    await receiver.close();
  });

  it('sends a retry that was claimed again while its last run was still ending', async () => {
    // Attempts 3 and 4 end with a warning e-mail: a slow SMTP server keeps their runs open after the failure is
    // written (its lease freed), while the poll claims the retry, due 5 ms later. Dropped, it waited out the lease.
    const smtp = await startSmtp({ delayMs: 400 });
    try {
      receiver = await startReceiver((_req, res) => { res.writeHead(500).end(); });
      const wp = await testWaypost({ dialect, config: { retryDelaysMs: [5, 5, 5, 5], pollMs: 20,
        alertEmail: 'ops@example.com', smtpUrl: smtp.url } });
      opened.push(wp);
      await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });
      await wp.put('enquiries', 1, enquiry);
      const worker = new DeliveryWorker(wp.core).start();
      const deadline = Date.now() + 10_000;
      while (receiver.requests.length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await worker.stop();
      expect(receiver.requests).toHaveLength(5);
    } finally {
      await smtp.close();
    }
  });

  it('two workers on one database deliver each of 200 deliveries exactly once', async () => {
    receiver = await startReceiver((_req, res) => { setTimeout(() => res.writeHead(200).end(), 2); });
    const databaseUrl = await freshDatabaseUrl(dialect);
    const open = async () => {
      const wp = await createWaypost({ env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' },
        config: { databaseUrl, deliveryConcurrency: 8 }, logger: createLogger('silent') });
      opened.push(wp);
      return wp;
    };
    const a = await open();
    const b = await open();
    await addWebhook(a.core, receiver.url, { events: ['enquiry.created'] });
    for (let i = 1; i <= 200; i++) await a.put('enquiries', i, enquiry);
    await Promise.all([new DeliveryWorker(a.core).drain(), new DeliveryWorker(b.core).drain()]);
    const ids = receiver.requests.map((r) => r.headers['x-waypost-delivery']);
    expect(ids).toHaveLength(200);
    expect(new Set(ids).size).toBe(200);
    const left = await a.core.db.selectFrom('deliveries').select('id').where('status', '!=', 'succeeded').execute();
    expect(left).toEqual([]);
  });

  it('graceful shutdown lets a quick in-flight attempt finish', async () => {
    receiver = await startReceiver((_req, res) => { setTimeout(() => res.writeHead(200).end(), 200); });
    const wp = await testWaypost({ dialect });
    opened.push(wp);
    await addWebhook(wp.core, receiver.url);
    await wp.put('enquiries', 1, enquiry);
    const worker = new DeliveryWorker(wp.core).start();
    await receiver.waitFor(1);
    await worker.stop(5_000);
    const d = await wp.core.db.selectFrom('deliveries').selectAll().executeTakeFirstOrThrow();
    expect(d).toMatchObject({ status: 'succeeded', attempts: 1, lease_owner: null });
  });

  it('graceful shutdown releases an attempt that outlasts the grace period, without counting it', async () => {
    receiver = await startReceiver(() => {}); // never answers
    const wp = await testWaypost({ dialect });
    opened.push(wp);
    await addWebhook(wp.core, receiver.url);
    await wp.put('enquiries', 1, enquiry);
    const worker = new DeliveryWorker(wp.core).start();
    await receiver.waitFor(1);
    await worker.stop(100);
    const d = await wp.core.db.selectFrom('deliveries').selectAll().executeTakeFirstOrThrow();
    expect(d).toMatchObject({ status: 'pending', attempts: 0, lease_owner: null, lease_until: null });
    expect(await wp.core.db.selectFrom('delivery_attempts').selectAll().execute()).toEqual([]);
    // The next worker picks it up at once.
    receiver.respond = (_req, res) => { res.writeHead(200).end(); };
    await new DeliveryWorker(wp.core).drain();
    expect((await wp.core.db.selectFrom('deliveries').select('status').executeTakeFirstOrThrow()).status)
      .toBe('succeeded');
  });

  it('a crashed worker\'s claim is retried once its lease expires, not before', async () => {
    receiver = await startReceiver();
    let t = Date.parse('2027-03-01T09:00:00Z');
    const wp = await testWaypost({ dialect, clock: { now: () => t }, config: { leaseMs: 10_000 } });
    opened.push(wp);
    await addWebhook(wp.core, receiver.url);
    await wp.put('enquiries', 1, enquiry);
    // Simulate a worker that claimed the delivery and died.
    await wp.core.db.updateTable('deliveries').set({ lease_owner: 'wrk_dead', lease_until: t + 10_000 }).execute();
    const worker = new DeliveryWorker(wp.core);
    await worker.drain();
    expect(receiver.requests).toHaveLength(0);
    t += 10_000;
    await worker.drain();
    expect(receiver.requests).toHaveLength(1);
  });

  it('the worker sends a "Send test" sample to a disabled webhook but cancels its ordinary deliveries', async () => {
    receiver = await startReceiver();
    const wp = await testWaypost({ dialect });
    opened.push(wp);
    const hook = await addWebhook(wp.core, receiver.url);
    await wp.put('enquiries', 1, enquiry);
    await wp.core.db.updateTable('webhooks').set({ active: 0 }).execute();
    await wp.core.db.transaction().execute(async (trx) => {
      const eventId = await recordEvent(trx, wp.core, { type: 'enquiry.created', resource: 'enquiries', recordId: 99,
        data: { id: 99 }, test: true });
      await queueDelivery(trx, wp.core, { webhookId: hook.id, eventId, eventType: 'enquiry.created' });
    });
    await new DeliveryWorker(wp.core).drain();
    expect(receiver.requests).toHaveLength(1);
    expect(JSON.parse(receiver.requests[0].raw.toString()).data).toEqual({ id: 99 });
    const statuses = await wp.core.db.selectFrom('deliveries').innerJoin('events', 'events.id', 'deliveries.event_id')
      .select(['events.test', 'deliveries.status']).orderBy('events.test').execute();
    expect(statuses.map((r) => [Number(r.test), r.status])).toEqual([[0, 'cancelled'], [1, 'succeeded']]);
  });
});

describe.each(DIALECTS)('fairness between webhooks on %s', (dialect) => {
  it('a slow webhook with a backlog does not hold up another webhook\'s deliveries', async () => {
    const slow = await startReceiver(() => {}); // never answers: every attempt waits for the timeout
    const fast = await startReceiver();
    const wp = await testWaypost({ dialect, config: { deliveryConcurrency: 4, perWebhookConcurrency: 2,
      deliveryTimeoutMs: 5_000, pollMs: 50 } });
    const worker = new DeliveryWorker(wp.core).start();
    try {
      await addWebhook(wp.core, slow.url, { events: ['enquiry.created'] });
      for (let i = 1; i <= 30; i++) await wp.put('enquiries', i, enquiry);
      await slow.waitFor(2);
      await addWebhook(wp.core, fast.url, { events: ['review.created'] });
      const started = Date.now();
      await wp.put('reviews', 1, { trip_id: 7, author_name: 'Di', rating: 5 });
      await fast.waitFor(1, 4_000); // well before the slow webhook's first timeout frees anything
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(slow.requests).toHaveLength(2); // its own limit holds
    } finally {
      await worker.stop(100);
      await wp.close();
      await slow.close();
      await fast.close();
    }
  });

  it('a backlog that waits in memory past its lease is not queued twice by the same worker (each delivery sent once)',
    async () => {
    // Answers take 100 to 250 ms and two run at a time, so the last of the 30 deliveries the first claim took wait in
    // memory longer than the 2 s lease (which outlasts the 500 ms timeout, as it must); the poll's claims (every
    // 20 ms) then find them due again, while their webhook can be claimed for.
    let n = 0;
    const receiver = await startReceiver((_req, res) => {
      setTimeout(() => res.writeHead(200).end(), 100 + 50 * (n++ % 4));
    });
    const wp = await testWaypost({ dialect, config: { deliveryConcurrency: 8, perWebhookConcurrency: 2, leaseMs: 2_000,
      deliveryTimeoutMs: 500, pollMs: 20 } });
    try {
      await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });
      for (let i = 1; i <= 30; i++) await wp.put('enquiries', i, enquiry);
      const worker = new DeliveryWorker(wp.core).start();
      await receiver.waitFor(30, 15_000);
      await new Promise((r) => setTimeout(r, 400)); // time for a duplicate to arrive, if one were sent
      await worker.stop(1_000);
      const ids = receiver.requests.map((r) => r.headers['x-waypost-delivery']);
      expect(ids).toHaveLength(30);
      expect(new Set(ids).size).toBe(30);
      const rows = await wp.core.db.selectFrom('deliveries').select(['status', 'attempts']).execute();
      expect(rows.map((r) => [r.status, Number(r.attempts)])).toEqual(Array(30).fill(['succeeded', 1]));
    } finally {
      await wp.close();
      await receiver.close();
    }
  });

  it("another process's delivery for a second webhook is picked up by the poll while the first webhook's backlog waits",
    async () => {
    const slow = await startReceiver(() => {});
    const fast = await startReceiver();
    const databaseUrl = await freshDatabaseUrl(dialect);
    const open = (config: Record<string, number> = {}) => createWaypost({
      env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' }, config: { databaseUrl, ...config },
      logger: createLogger('silent'),
    });
    const wp = await open({ deliveryConcurrency: 4, perWebhookConcurrency: 2, deliveryTimeoutMs: 5_000, pollMs: 50 });
    const other = await open(); // its writes reach the worker only through the database (no in-process wake-up)
    const worker = new DeliveryWorker(wp.core).start();
    try {
      await addWebhook(wp.core, slow.url, { events: ['enquiry.created'] });
      await addWebhook(wp.core, fast.url, { events: ['review.created'] });
      for (let i = 1; i <= 30; i++) await wp.put('enquiries', i, enquiry);
      await slow.waitFor(2);
      await new Promise((r) => setTimeout(r, 200)); // the worker has looked for other work and found none
      await other.put('reviews', 1, { trip_id: 7, author_name: 'Di', rating: 5 });
      await fast.waitFor(1, 3_000);
      expect(slow.requests).toHaveLength(2);
    } finally {
      await worker.stop(100);
      await wp.close();
      await other.close();
      await slow.close();
      await fast.close();
    }
  });
});
