// The per-webhook throttle end to end, to a real local receiver on SQLite and PostgreSQL: a burst to a webhook
// limited to 3/s arrives 3 a second while an unthrottled webhook beside it gets everything at once; retries and
// recovered deliveries take their turn within the same limit.
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import type { Config } from '../../../src/config.js';
import { recoverDeliveries } from '../../../src/webhooks/recover/index.js';
import { startWorker, type Worker } from '../../../src/webhooks/index.js';
import { startReceiver, status, type Receiver } from '../engine/receiver.js';
import { addWebhook } from '../engine/fixtures.js';
import { arrivalsOf, busiestWindow, perSecond } from './arrivals.js';

const enquiry = (i: number) => ({ full_name: `Guest ${i}`, email: `guest${i}@example.com` });

describe.each(DIALECTS)('per-webhook throttle on %s', (dialect) => {
  let wp: Waypost;
  let receiver: Receiver;
  let worker: Worker | null = null;
  const setup = async (config: Partial<Config> = {}) => {
    receiver = await startReceiver();
    wp = await testWaypost({ dialect, config: { pollMs: 100, ...config } });
  };
  afterEach(async () => {
    await worker?.stop();
    worker = null;
    await wp.close();
    await receiver.close();
  });

  const burst = 'sends a burst to a 3/s webhook 3 a second; an unthrottled webhook beside it is not held up';
  it(burst, { timeout: 30_000 }, async () => {
    await setup();
    const slow = await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'], maxPerSecond: 3 });
    const fast = await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });
    for (let i = 1; i <= 12; i++) await wp.put('enquiries', i, enquiry(i));
    const queuedAt = Date.now();
    worker = await startWorker(wp.core);
    await receiver.waitFor(24, 15_000);

    const slowTimes = arrivalsOf(receiver.requests, slow.id);
    const counts = perSecond(slowTimes);
    expect(counts).toHaveLength(4); // 12 at 3/s: four seconds
    for (const n of counts) expect(Math.abs(n - 3)).toBeLessThanOrEqual(1);
    expect(busiestWindow(slowTimes)).toBeLessThanOrEqual(4);
    // All of the unthrottled webhook's deliveries arrived before the throttled one had sent half of its own.
    const fastTimes = arrivalsOf(receiver.requests, fast.id);
    expect(fastTimes).toHaveLength(12);
    expect(Math.max(...fastTimes)).toBeLessThan([...slowTimes].sort((a, b) => a - b)[6]);
    expect(Math.max(...fastTimes) - queuedAt).toBeLessThan(2_000);
  });

  it('retries go through the same limit: no second sees more than its share', { timeout: 30_000 }, async () => {
    await setup({ retryDelaysMs: [0, 0, 0, 0] });
    const seen = new Set<string>();
    // Every delivery fails once (500), then succeeds: 6 deliveries make 12 attempts.
    receiver.respond = (req, res) => {
      const id = String(req.headers['x-waypost-delivery']);
      if (seen.has(id)) return void res.writeHead(200).end('ok');
      seen.add(id);
      status(500)(req, res);
    };
    const hook = await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'], maxPerSecond: 4 });
    for (let i = 1; i <= 6; i++) await wp.put('enquiries', i, enquiry(i));
    worker = await startWorker(wp.core);
    await receiver.waitFor(12, 15_000);
    const times = arrivalsOf(receiver.requests, hook.id);
    expect(busiestWindow(times)).toBeLessThanOrEqual(5);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(2_500); // 12 at 4/s: 11 gaps of 250 ms
    await expect.poll(async () => (await wp.core.db.selectFrom('deliveries').select('status')
      .where('status', '!=', 'succeeded').execute()).length).toBe(0);
  });

  it('a recovery redelivers within the limit', { timeout: 30_000 }, async () => {
    await setup();
    receiver.respond = status(503);
    const hook = await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'], maxPerSecond: 5 });
    const since = new Date(wp.core.clock.now() - 1000).toISOString();
    for (let i = 1; i <= 10; i++) await wp.put('enquiries', i, enquiry(i));
    worker = await startWorker(wp.core);
    await receiver.waitFor(10, 15_000);
    // The first attempts failed; cancel what is pending (retries are minutes away), then recover them all at once.
    await worker.stop();
    await wp.core.db.updateTable('deliveries').set({ status: 'failed', next_attempt_at: null })
      .where('status', '=', 'pending').execute();
    receiver.requests.length = 0;
    receiver.respond = status(200);
    const recovered = await recoverDeliveries(wp.core, hook.id, { since });
    expect(recovered.queued).toBe(10);
    worker = await startWorker(wp.core);
    await receiver.waitFor(10, 15_000);
    const times = arrivalsOf(receiver.requests, hook.id);
    expect(busiestWindow(times)).toBeLessThanOrEqual(6);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(1_600); // 10 at 5/s: 9 gaps of 200 ms
  });
});
