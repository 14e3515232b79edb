// The chart counters (issue 37): every attempt the worker makes is counted by outcome and latency in the write that
// records it, so the charts match the delivery log without reading it, and two workers' counts add up exactly.
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS, freshDatabaseUrl } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import { createWaypost, type Waypost } from '../../../src/sdk.js';
import { createLogger } from '../../../src/log.js';
import { DeliveryWorker } from '../../../src/webhooks/index.js';
import { LATENCY_BOUNDS_MS } from '../../../src/webhooks/stats/counts.js';
import type { WebhookStatsView } from '../../../src/webhooks/stats/views.js';
import { startReceiver, type Receiver } from '../engine/receiver.js';
import { addWebhook, fakeClock } from '../engine/fixtures.js';
import { adminHeaders } from '../manage/fixtures.js';

const enquiry = (i: number) => ({ full_name: `Guest ${i}`, email: `guest${i}@example.com` });

/** The exact q-quantile of some latencies (nearest rank), to hold the histogram's answer against. */
function exactQuantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(q * sorted.length) - 1];
}

/** The histogram answers the upper bound of the bucket the exact value falls in. */
function bucketOf(ms: number): number {
  return LATENCY_BOUNDS_MS.find((b) => ms <= b) ?? LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1];
}

describe.each(DIALECTS)('webhook chart counters on %s', (dialect) => {
  const opened: Waypost[] = [];
  let receiver: Receiver;
  afterEach(async () => {
    for (const wp of opened.splice(0)) await wp.close();
    await receiver?.close();
  });

  async function stats(app: FastifyInstance, auth: Record<string, string>, id: string, range = '24h') {
    const res = await app.inject({ method: 'GET', url: `/admin/api/webhooks/${id}/stats?range=${range}`,
      headers: auth });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<WebhookStatsView>();
  }

  it('counts succeeded, retried and failed attempts with their latency, as the delivery log has them', async () => {
    const delays = [0, 5, 40, 120];
    let next = 0;
    let failing = false;
    receiver = await startReceiver((_req, res) => {
      if (failing) return void res.writeHead(500).end();
      setTimeout(() => res.writeHead(200).end(), delays[next++ % delays.length]);
    });
    const clock = fakeClock();
    const wp = await testWaypost({ dialect, clock, config: { retryDelaysMs: [60_000] } });
    opened.push(wp);
    const app = await wp.app();
    const auth = await adminHeaders(wp);
    const hook = await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });
    const worker = new DeliveryWorker(wp.core);
    for (let i = 1; i <= 4; i++) {
      await wp.put('enquiries', i, enquiry(i));
      await worker.drain();
    }
    const lastSuccess = clock.now();
    clock.advance(120_000);
    failing = true;
    // One delivery only: the first that fails for good disables the webhook, which cancels the others unsent.
    await wp.put('enquiries', 5, enquiry(5));
    await worker.drain(); // a failed attempt, retried a minute later
    clock.advance(60_000);
    await worker.drain(); // the last attempt: the delivery fails

    const view = await stats(app, auth, hook.id);
    expect(view.totals).toMatchObject({ succeeded: 4, retried: 1, failed: 1 });
    const attempts = await wp.core.db.selectFrom('delivery_attempts').selectAll().execute();
    const ms = attempts.map((a) => Number(a.duration_ms));
    expect(view.totals.p50_ms).toBe(bucketOf(exactQuantile(ms, 0.5)));
    expect(view.totals.p95_ms).toBe(bucketOf(exactQuantile(ms, 0.95)));
    // The steps add up to the totals, and each attempt is in the step of the time it ended.
    const sum = (k: 'succeeded' | 'retried' | 'failed') => view.points.reduce((n, p) => n + p[k], 0);
    expect([sum('succeeded'), sum('retried'), sum('failed')]).toEqual([4, 1, 1]);
    expect(view.points).toHaveLength(96);
    expect(view.points.at(-1)).toMatchObject({ failed: 1 });
    expect(view.health.success_rate).toBeCloseTo(4 / 6);
    expect(view.health).toMatchObject({
      attempts: 6, last_success_at: new Date(lastSuccess).toISOString(),
      last_failure_at: new Date(clock.now()).toISOString(), streak: { kind: 'failing', attempts: 2 },
    });
    for (const range of ['7d', '30d']) {
      expect((await stats(app, auth, hook.id, range)).totals).toEqual(view.totals);
    }
    const list = await app.inject({ method: 'GET', url: '/admin/api/webhooks/health', headers: auth });
    expect(list.json().items).toEqual([view.health]);

    // Answered from the counters alone: the same charts once the delivery log is gone.
    await wp.core.db.deleteFrom('delivery_attempts').execute();
    await wp.core.db.deleteFrom('deliveries').execute();
    expect(await stats(app, auth, hook.id)).toEqual(view);

    // A day later the 24 h chart is empty; the 7 d one still has them.
    clock.advance(25 * 3_600_000);
    expect((await stats(app, auth, hook.id)).totals).toMatchObject({ succeeded: 0, retried: 0, failed: 0 });
    expect((await stats(app, auth, hook.id, '7d')).totals).toMatchObject({ succeeded: 4, retried: 1, failed: 1 });
  }, 90_000);

  it('answers 400 for an unknown range and 404 for an unknown webhook', async () => {
    receiver = await startReceiver();
    const wp = await testWaypost({ dialect });
    opened.push(wp);
    const app = await wp.app();
    const auth = await adminHeaders(wp);
    const hook = await addWebhook(wp.core, receiver.url);
    const bad = await app.inject({ method: 'GET', url: `/admin/api/webhooks/${hook.id}/stats?range=1y`,
      headers: auth });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toContain('range');
    const missing = await app.inject({ method: 'GET', url: '/admin/api/webhooks/wh_nope/stats', headers: auth });
    expect(missing.statusCode).toBe(404);
  });

  it('two workers on one database count each of 200 successes exactly once', async () => {
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
    const hook = await addWebhook(a.core, receiver.url, { events: ['enquiry.created'] });
    for (let i = 1; i <= 200; i++) await a.put('enquiries', i, enquiry(i));
    await Promise.all([new DeliveryWorker(a.core).drain(), new DeliveryWorker(b.core).drain()]);
    const byWorker = new Set(receiver.requests.map((r) => r.headers['x-waypost-delivery']));
    expect(byWorker.size).toBe(200);
    const view = await stats(await a.app(), await adminHeaders(a), hook.id);
    expect(view.totals).toMatchObject({ succeeded: 200, retried: 0, failed: 0 });
    expect(view.health.streak).toEqual({ kind: 'succeeding', attempts: 200 });
  }, 90_000);
});
