// What the delivery metrics add to each delivery (`npm run bench:delivery-metrics`): the worker counts every
// attempt's outcome (by webhook) and duration, and every claim, in memory. Times those calls, as the worker makes
// them, against the worker's whole cost per delivery in bench/results/webhooks.json (SQLite, 1 webhook), so the
// share is a figure rather than a guess on a machine too busy for bench:webhooks to separate 1% from noise.
// Results go to bench/results/delivery-metrics.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createWaypost } from '../src/sdk.js';
import { createLogger } from '../src/log.js';
import { deliveryMetrics } from '../src/webhooks/delivery/metrics.js';
import { metricsOf } from '../src/metrics.js';
import type { Claimed } from '../src/webhooks/delivery/queue/index.js';
import { freshDatabaseUrl } from '../test/helpers/db.js';

const N = Number(process.env.BENCH_N ?? 1_000_000);
const WEBHOOKS = 10;
const CLAIM = 256; // one claim serves this many deliveries (4 rounds of 64)

const databaseUrl = await freshDatabaseUrl('sqlite');
const wp = await createWaypost({ config: { databaseUrl }, logger: createLogger('silent') });
const metrics = deliveryMetrics(wp.core);
const hooks = Array.from({ length: WEBHOOKS }, (_, i) => `wh_${String(i).padStart(20, '0')}`);
const claimed = Array.from({ length: CLAIM }, (_, i) => ({ id: `dlv_${i}`, leaseTakenOver: false }) as Claimed);

function perDelivery(): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) {
    metrics.attempt(3 + (i % 40));
    metrics.outcome('succeeded', hooks[i % WEBHOOKS]);
    if (i % CLAIM === 0) metrics.claimed('wrk_bench', claimed);
  }
  return Number(process.hrtime.bigint() - start) / N;
}

perDelivery(); // warm-up (JIT)
const runs = [perDelivery(), perDelivery(), perDelivery()].sort((a, b) => a - b);
const ns = runs[1];
const webhooks = JSON.parse(readFileSync(new URL('./results/webhooks.json', import.meta.url), 'utf8')) as {
  results: Array<{ webhooks: number; throughput: { deliveries_per_second: number } }>; date: string;
};
const perSecond = webhooks.results.find((r) => r.webhooks === 1)!.throughput.deliveries_per_second;
const workerNs = 1e9 / perSecond;
// The scrape's text must still hold every series (a sanity check, not a timing).
const text = await metricsOf(wp.core).scrape();
if (!text.includes('waypost_deliveries_total{outcome="succeeded"')) throw new Error('the counts are missing');
await wp.close();

const out = {
  benchmark: 'delivery metrics: cost per delivery of counting an attempt (outcome by webhook, duration) and its '
    + 'share of the claim counts, in memory',
  iterations: N, webhooks: WEBHOOKS, claim_size: CLAIM,
  machine: { cpus: cpus().length, node: process.version, load_average_1m: Number(loadavg()[0].toFixed(2)) },
  date: new Date().toISOString(),
  ns_per_delivery: { median: Math.round(ns), runs: runs.map((r) => Math.round(r)) },
  worker_ns_per_delivery: Math.round(workerNs),
  worker_source: `bench/results/webhooks.json (${webhooks.date}): ${perSecond} deliveries/s, SQLite, 1 webhook`,
  share_of_worker_cost_percent: Number(((ns / workerNs) * 100).toFixed(2)),
};
console.log(JSON.stringify(out, null, 2));
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/delivery-metrics.json', import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
