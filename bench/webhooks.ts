// Webhook delivery benchmark (`npm run bench:webhooks`): 10,000 events to 1 and to 10 subscribed webhooks on a
// local receiver (its own process). Reports
//   - throughput (deliveries/s): the outbox filled with 10,000 events, then drained by one worker;
//   - event-commit → receiver latency p50/p95/p99 with events committed at a steady 200/s;
//   - a baseline in the same run: a bare undici POST loop with the same concurrency and body size.
// The drain and its baseline take turns for BENCH_ROUNDS rounds (default 3), after an untimed warm-up turn of each:
// the machine's speed drifts, so each round's ratio compares two runs made back to back, and the report gives the
// median round and the median ratio.
// Latency turns run in a child process each (webhook-latency.ts), BENCH_LATENCY_ROUNDS rounds (default 3); with
// BENCH_BASELINE_REF=<git ref> that commit's engine takes a turn beside this tree's in every round (interleaved),
// and the report gives both and the median ratio of their p99s.
// Results go to bench/results/webhooks[-postgres].json. Targets: p99 < 100 ms at 200 events/s; throughput >= 40%
// of baseline.
// Options: BENCH_EVENTS (default 10000), BENCH_RATE (200), BENCH_LATENCY_SECONDS (10), BENCH_ROUNDS (3),
// BENCH_LATENCY_ROUNDS (3), BENCH_LATENCY_WARM_SECONDS (2), BENCH_WEBHOOKS (1,10), BENCH_DRAIN=0 (latency only),
// BENCH_LATENCY=0 (drain only), BENCH_BASELINE_REF, BENCH_DIALECT (sqlite|postgres), BENCH_ORDERING (none; or
// `none,record`: each webhook count is measured with unordered then with `ordering: record` webhooks, back to back,
// and `ordering_cost` gives record's throughput and p99 against none's).
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { Agent, request } from 'undici';
import { createWaypost, type Waypost } from '../src/sdk.js';
import { createLogger } from '../src/log.js';
import { putMany } from '../src/host/write.js';
import { DeliveryWorker } from '../src/webhooks/index.js';
import { freshDatabaseUrl, type TestDialect } from '../test/helpers/db.js';
import { addWebhook } from '../test/webhooks/engine/fixtures.js';
import { BASELINE_REF, latencyRounds } from './webhook-latency.js';
import { enquiry } from './enquiry.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const DIALECT = (process.env.BENCH_DIALECT ?? 'sqlite') as TestDialect;
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const WEBHOOK_COUNTS = (process.env.BENCH_WEBHOOKS ?? '1,10').split(',').map(Number);
const DRAIN = process.env.BENCH_DRAIN !== '0';
const LATENCY = process.env.BENCH_LATENCY !== '0';
type Ordering = 'none' | 'record';
const ORDERINGS = (process.env.BENCH_ORDERING ?? 'none').split(',') as Ordering[];

// ---------- the receiver process ----------

export interface Receiver {
  url: string;
  expect(n: number): Promise<void>;
  report(): Promise<{ ids: number[]; times: number[] }>;
  reset(): Promise<void>;
  stop(): void;
}

async function startReceiver(): Promise<Receiver> {
  const child: ChildProcess = fork(new URL('./webhook-receiver.ts', import.meta.url).pathname, [], {
    execArgv: ['--import', 'tsx'],
  });
  const next = (type: string) => new Promise<any>((resolve) => {
    const on = (m: { type: string }) => {
      if (m.type === type) {
        child.off('message', on);
        resolve(m);
      }
    };
    child.on('message', on);
  });
  const { port } = await next('listening');
  return {
    url: `http://127.0.0.1:${port}/hook`,
    async expect(n) { const p = next('reached'); child.send({ type: 'expect', n }); await p; },
    async report() { const p = next('report'); child.send({ type: 'report' }); return p; },
    async reset() { const p = next('reset'); child.send({ type: 'reset' }); await p; },
    stop() { child.send({ type: 'stop' }); },
  };
}

// ---------- helpers ----------

const now = () => performance.timeOrigin + performance.now();
const round = (n: number, d = 1) => Number(n.toFixed(d));

async function openWaypost(): Promise<Waypost> {
  return createWaypost({
    env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' },
    config: { databaseUrl: await freshDatabaseUrl(DIALECT) },
    logger: createLogger('silent'),
  });
}

// ---------- throughput: fill the outbox, then drain it ----------

async function throughput(receiver: Receiver, webhooks: number, events = EVENTS, ordering: Ordering = 'none') {
  const wp = await openWaypost();
  try {
    for (let w = 0; w < webhooks; w++) {
      await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'], name: `hook ${w}`, ordering });
    }
    // The worker exists before the backlog, as in a running service (it starts its SQLite writer thread meanwhile);
    // it claims nothing until drain().
    const worker = new DeliveryWorker(wp.core);
    for (let i = 1; i <= events; i += 500) {
      const items = [];
      for (let j = i; j < Math.min(i + 500, events + 1); j++) {
        items.push({ resource: 'enquiries' as const, id: j, input: enquiry(j) as never });
      }
      await putMany(wp.core, items);
    }
    const deliveries = events * webhooks;
    await receiver.reset();
    const reached = receiver.expect(deliveries);
    const started = now();
    await worker.drain();
    await reached;
    const seconds = (now() - started) / 1000;
    const body = (await wp.core.db.selectFrom('delivery_attempts').select('request_body').limit(1)
      .executeTakeFirstOrThrow()).request_body;
    return {
      webhooks, deliveries, seconds: round(seconds, 2), deliveries_per_second: Math.round(deliveries / seconds),
      body_bytes: Buffer.byteLength(body), body,
    };
  } finally {
    await wp.close();
  }
}

// ---------- baseline: bare undici POST loop, same concurrency and body ----------

async function baseline(receiver: Receiver, concurrency: number, body: string, total: number) {
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 256 });
  await receiver.reset();
  const reached = receiver.expect(total);
  let sent = 0;
  const started = now();
  const loop = async () => {
    while (sent < total) {
      sent++;
      const res = await request(receiver.url, {
        method: 'POST', body, headers: { 'content-type': 'application/json' }, dispatcher: agent,
      });
      await res.body.text();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  await reached;
  const seconds = (now() - started) / 1000;
  await agent.close();
  return { concurrency, requests: total, seconds: round(seconds, 2), requests_per_second: Math.round(total / seconds) };
}

// ---------- drain rounds: throughput and the bare loop, back to back ----------

async function drainRounds(receiver: Receiver, webhooks: number, ordering: Ordering) {
  const concurrency = Math.min(config.deliveryConcurrency, webhooks * config.perWebhookConcurrency);
  // One untimed warm-up turn of each side (a fifth of the events): the first turn otherwise also measures the JIT.
  console.error(`warm-up: ${Math.ceil(EVENTS / 5)} events x ${webhooks} webhook(s), then the baseline…`);
  const warm = await throughput(receiver, webhooks, Math.ceil(EVENTS / 5), ordering);
  await baseline(receiver, concurrency, warm.body, warm.deliveries);
  type Turn = { t: Awaited<ReturnType<typeof throughput>>; b: Awaited<ReturnType<typeof baseline>>; ratio: number };
  const turns: Turn[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    console.error(`round ${r}/${ROUNDS}: throughput, ${EVENTS} events x ${webhooks} webhook(s), ordering ${ordering}…`);
    const t = await throughput(receiver, webhooks, EVENTS, ordering);
    console.error(`round ${r}/${ROUNDS}: baseline, undici POST loop, concurrency ${concurrency}…`);
    const b = await baseline(receiver, concurrency, t.body, t.deliveries);
    turns.push({ t, b, ratio: t.deliveries_per_second / b.requests_per_second });
    const percent = (100 * turns[turns.length - 1].ratio).toFixed(0);
    console.error(`  ${t.deliveries_per_second} deliveries/s vs ${b.requests_per_second} requests/s = ${percent}%`);
  }
  const medianBy = <T>(list: T[], key: (x: T) => number) =>
    [...list].sort((x, y) => key(x) - key(y))[Math.floor(list.length / 2)];
  const t = medianBy(turns, (x) => x.t.deliveries_per_second).t;
  const ratio = medianBy(turns, (x) => x.ratio).ratio;
  return {
    throughput: {
      deliveries: t.deliveries, seconds: t.seconds, deliveries_per_second: t.deliveries_per_second,
      body_bytes: t.body_bytes,
    },
    baseline: medianBy(turns, (x) => x.b.requests_per_second).b,
    throughput_vs_baseline: round(ratio, 3),
    rounds: turns.map((x) => ({
      deliveries_per_second: x.t.deliveries_per_second, baseline_requests_per_second: x.b.requests_per_second,
      ratio: round(x.ratio, 3),
    })),
  };
}

// ---------- run ----------

const receiver = await startReceiver();
const config = (await openWaypost().then(async (wp) => { const c = wp.config; await wp.close(); return c; }));
type Row = {
  webhooks: number; ordering: Ordering; throughput?: { deliveries_per_second: number };
  latency?: { latency_ms: { p99: number } };
};
const results: Row[] = [];
try {
  for (const webhooks of WEBHOOK_COUNTS) for (const ordering of ORDERINGS) {
    process.env.BENCH_WEBHOOK_ORDERING = ordering; // the latency child's webhooks (latency-child.ts)
    const drained = DRAIN ? await drainRounds(receiver, webhooks, ordering) : undefined;
    const l = LATENCY ? await latencyRounds(receiver, webhooks) : undefined;
    const row = {
      webhooks, ordering, ...drained, latency: l,
      targets: {
        ...(l ? { p99_under_100ms: l.latency_ms.p99 < 100 } : {}),
        ...(drained ? { throughput_at_least_40pct_of_baseline: drained.throughput_vs_baseline >= 0.4 } : {}),
      },
    };
    console.error(JSON.stringify(row));
    results.push(row);
  }
} finally {
  receiver.stop();
}

// Each webhook count's `ordering: record` row against its unordered one (measured back to back).
const orderingCost = results.filter((r) => r.ordering === 'record').map((r) => {
  const none = results.find((n) => n.ordering === 'none' && n.webhooks === r.webhooks);
  const ratio = (a?: number, b?: number) => (a && b ? round(a / b, 3) : null);
  return {
    webhooks: r.webhooks,
    throughput_record_vs_none: ratio(r.throughput?.deliveries_per_second, none?.throughput?.deliveries_per_second),
    p99_record_vs_none: ratio(r.latency?.latency_ms.p99, none?.latency?.latency_ms.p99),
  };
});

const out = {
  benchmark: 'webhook delivery: outbox drain throughput, event-commit → receiver latency at a steady rate, '
    + 'bare undici baseline',
  dialect: DIALECT,
  events: EVENTS,
  latency_rate_events_per_second: RATE,
  baseline_ref: BASELINE_REF ?? null,
  rounds: ROUNDS,
  reported: 'throughput and baseline: median round of each (after one untimed warm-up turn of each); '
    + 'throughput_vs_baseline: median of the per-round ratios',
  config: {
    deliveryConcurrency: config.deliveryConcurrency, perWebhookConcurrency: config.perWebhookConcurrency,
    prefetchRounds: config.prefetchRounds, heldRounds: config.heldRounds, successBatchMax: config.successBatchMax,
    gatherBelow: config.gatherBelow, gatherMs: config.gatherMs,
  },
  // The 1-minute load average at the end: other work on the machine skews both the engine and the baseline.
  machine: { cpus: cpus().length, node: process.version, load_average_1m: Number(loadavg()[0].toFixed(2)) },
  date: new Date().toISOString(),
  results,
  ...(orderingCost.length > 0 ? { ordering_cost: orderingCost } : {}),
};
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
const resultFile = `./results/webhooks${DIALECT === 'sqlite' ? '' : `-${DIALECT}`}.json`;
writeFileSync(new URL(resultFile, import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
console.log(JSON.stringify(out, null, 2));
