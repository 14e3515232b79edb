// The delivery metrics an operator scrapes, on both databases: outcomes by webhook, attempt durations, claims per
// worker, a lease that ran out counted as an expiry by the worker that took it over (a crashed worker's), and the
// queue's depth and oldest due age read at scrape time.
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import { samples } from '../../helpers/processes.js';
import { metricsOf } from '../../../src/metrics.js';
import type { Waypost } from '../../../src/sdk.js';
import { DeliveryWorker } from '../../../src/webhooks/index.js';
import { deliveryQueue } from '../../../src/webhooks/delivery/queue/index.js';
import { startReceiver, status, type Receiver } from './receiver.js';
import { addWebhook, fakeClock } from './fixtures.js';

const enquiry = (i: number) => ({ full_name: `Guest ${i}`, email: `guest${i}@example.com` });

describe.each(DIALECTS)('delivery metrics on %s', (dialect) => {
  let wp: Waypost | null = null;
  let receiver: Receiver | null = null;
  afterEach(async () => {
    await wp?.close();
    await receiver?.close();
    wp = null;
  });
  const scrape = async () => samples(await metricsOf(wp!.core).scrape());

  it('counts outcomes by webhook, attempt durations and claims per worker', async () => {
    receiver = await startReceiver();
    const failing = await startReceiver(status(500));
    try {
      wp = await testWaypost({ dialect });
      const good = await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });
      const bad = await addWebhook(wp.core, failing.url, { events: ['enquiry.created'] });
      for (let i = 1; i <= 3; i++) await wp.put('enquiries', i, enquiry(i));
      const worker = new DeliveryWorker(wp.core);
      await worker.drain();
      const m = await scrape();
      expect(m.get(`waypost_deliveries_total{outcome="succeeded",webhook="${good.id}"}`)).toBe(3);
      expect(m.get(`waypost_deliveries_total{outcome="retry",webhook="${bad.id}"}`)).toBe(3);
      expect(m.get('waypost_delivery_attempt_duration_seconds_count')).toBe(6);
      expect(m.get(`waypost_delivery_claims_total{worker="${worker.id}"}`)).toBe(6);
      expect(m.get(`waypost_delivery_lease_expiries_total{worker="${worker.id}"}`)).toBe(0);
      // The three retries wait (a minute by default): still pending, not due yet.
      expect(m.get('waypost_delivery_queue_depth')).toBe(3);
      expect(m.get('waypost_delivery_oldest_due_age_seconds')).toBe(0);
    } finally {
      await failing.close();
    }
  });

  it('counts a claim of a delivery whose lease ran out as a lease expiry, and says how long it was due', async () => {
    const clock = fakeClock();
    wp = await testWaypost({ dialect, clock, config: { leaseMs: 10_000 } });
    await addWebhook(wp.core, 'http://127.0.0.1:9/hook', { events: ['enquiry.created'] });
    await wp.put('enquiries', 1, enquiry(1));
    await wp.put('enquiries', 2, enquiry(2));
    const queue = deliveryQueue(wp.core);
    const claim = (owner: string, limit: number) => queue.claim({
      owner, limit, now: clock.now(), leaseMs: wp!.config.leaseMs, skipWebhooks: [],
    });
    // A worker claims one and crashes (never records it); 30 s later another claims both.
    const first = await claim('wrk_crashed', 1);
    expect(first.map((c) => c.leaseTakenOver)).toEqual([false]);
    clock.advance(30_000);
    expect((await scrape()).get('waypost_delivery_oldest_due_age_seconds')).toBe(30);
    const second = await claim('wrk_survivor', 10);
    expect(second.map((c) => [c.id, c.leaseTakenOver])).toEqual(expect.arrayContaining([
      [first[0].id, true], [expect.any(String), false],
    ]));
    expect(second).toHaveLength(2);
    // Taken over, the lease holds: nobody else can claim it now.
    expect(await claim('wrk_third', 10)).toEqual([]);
    expect((await scrape()).get('waypost_delivery_queue_depth')).toBe(2);
  });

  it('the worker labels the lease expiries it took over with its id', async () => {
    receiver = await startReceiver();
    wp = await testWaypost({ dialect, config: { leaseMs: 200 } });
    await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });
    await wp.put('enquiries', 1, enquiry(1));
    const now = Date.now();
    await deliveryQueue(wp.core).claim({ owner: 'wrk_crashed', limit: 1, now, leaseMs: 200, skipWebhooks: [] });
    await new Promise((r) => setTimeout(r, 300)); // the crashed worker's lease runs out
    const worker = new DeliveryWorker(wp.core);
    await worker.drain();
    expect(receiver.requests).toHaveLength(1);
    expect((await scrape()).get(`waypost_delivery_lease_expiries_total{worker="${worker.id}"}`)).toBe(1);
  });
});
