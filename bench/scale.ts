// Scale-out on PostgreSQL (npm run bench:scale; progress on stderr, results in bench/results/scale.json):
//   - webhook drain: BENCH_EVENTS events (default 10,000) × BENCH_WEBHOOKS webhooks (default 4) on a local receiver
//     (its own process), drained by 1, 2 and 4 `waypost serve --role worker` processes; deliveries/s, the ratio to
//     1 worker in the same round, and the bare undici loop (same body, same concurrency) in the same round;
//   - REST API throughput with 1 and 2 `serve --role api` processes (REDIS_URL), wrk, a cached list and the same
//     list with the cache off; requests/s and the ratio to 1 process;
//   - per configuration, the CPU seconds of each party (from /proc; scale-procs.ts), and per delivery / request.
// Rounds (BENCH_ROUNDS, default 2) alternate every configuration, so a drift of the shared machine's speed hits all
// alike; the report gives each configuration's median round and the median of the per-round ratios.
// Options: BENCH_EVENTS, BENCH_WEBHOOKS, BENCH_ROUNDS, BENCH_WORKERS (default 1,2,4), BENCH_API_SECONDS (default 5),
// BENCH_API=0 (drain only), BENCH_DRAIN=0 (API only), BENCH_CPU_PROF=<dir> (worker processes write --cpu-prof
// profiles there), BENCH_BEFORE_REF=<git ref>: one worker of that commit (its sources through tsx; this tree's too,
// then) takes a turn in every round beside one of this tree's, and so do its 1 and 2 API processes (on a copy of
// the database without the migrations it does not know), for a before/after in the same run.
// Needs a build (npm run build) for bin/waypost.js unless BENCH_BEFORE_REF is set.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createWaypost } from '../src/sdk.js';
import { createLogger } from '../src/log.js';
import { createApiKey } from '../src/api/keys.js';
import { putMany } from '../src/host/write.js';
import { addWebhook } from '../test/webhooks/engine/fixtures.js';
import { PG_URL, REDIS_URL, hasRedis } from '../test/helpers/services.js';
import { bareLoop, drain, type Receiver } from './scale-drain.js';
import { apiRounds, copyForBefore } from './scale-http.js';
import { needWrk } from './need-wrk.js';
import { beforeTree, ROOT } from './before-tree.js';
import { enquiry } from './enquiry.js';

const EVENTS = process.env.BENCH_DRAIN === '0' ? 0 : Number(process.env.BENCH_EVENTS ?? 10_000);
const WEBHOOKS = process.env.BENCH_DRAIN === '0' ? 0 : Number(process.env.BENCH_WEBHOOKS ?? 4);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const WORKERS = (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map(Number);
const API_SECONDS = Number(process.env.BENCH_API_SECONDS ?? 5);
const BEFORE_REF = process.env.BENCH_BEFORE_REF;
const CPU_PROF = process.env.BENCH_CPU_PROF;
const DRAIN = process.env.BENCH_DRAIN !== '0';
const log = (line: string) => process.stderr.write(`${line}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round3 = (n: number) => Number(n.toFixed(3));

async function startReceiver(): Promise<Receiver & { stop(): void }> {
  const child = fork(join(import.meta.dirname, 'webhook-receiver.ts'), [], { execArgv: ['--import', 'tsx'] });
  const next = (type: string) => new Promise<{ port?: number }>((resolve) => {
    const on = (m: { type: string }) => {
      if (m.type === type) {
        child.off('message', on);
        resolve(m as { port?: number });
      }
    };
    child.on('message', on);
  });
  const { port } = await next('listening');
  return {
    url: `http://127.0.0.1:${port}/hook`, pid: child.pid!,
    async expect(n) { const p = next('reached'); child.send({ type: 'expect', n }); await p; },
    async reset() { const p = next('reset'); child.send({ type: 'reset' }); await p; },
    stop() { child.send({ type: 'stop' }); },
  };
}

const booking = (id: number) => {
  const when = new Date(Date.UTC(2024, 0, 1) + id * 60_000).toISOString();
  return { status: 'booked', currency: 'EUR', total_amount: `${(id % 900) + 100}.00`, paid_amount: '50.00',
    booked_at: when, customer: { id: (id % 500) + 1, email: `customer${id % 500}@example.com`, first_name: 'Ana',
      last_name: `Silva${id % 97}` },
    trips: [{ trip_id: (id % 5) + 1, title: 'Douro Valley Walk', start_date: '2027-05-01', travellers: 2,
      line_items: [{ label: 'Adult', quantity: 2, price: '100.00', total: '200.00' }] }],
    engine_version: '6.8.0', cart_version: '4.1', created_at: when, updated_at: when };
};

async function main() {
  needWrk();
  const dbName = `waypost_scale_${randomBytes(4).toString('hex')}`;
  const server = new pg.Client({ connectionString: PG_URL });
  await server.connect();
  await server.query(`CREATE DATABASE ${dbName}`);
  const u = new URL(PG_URL);
  u.pathname = `/${dbName}`;
  const databaseUrl = u.toString();
  const receiver = await startReceiver();
  const admin = new pg.Client({ connectionString: databaseUrl });
  const meter = new pg.Client({ connectionString: databaseUrl });
  try {
    log(`database ${dbName}: queueing ${EVENTS} events x ${WEBHOOKS} webhooks, seeding 2,000 bookings…`);
    const wp = await createWaypost({ env: {}, logger: createLogger('warn', process.stderr), config: { databaseUrl } });
    let key: { key: string; secret: string };
    let config: typeof wp.config;
    try {
      config = wp.config;
      for (let w = 0; w < WEBHOOKS; w++) await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'] });
      for (let i = 1; i <= EVENTS; i += 500) {
        const items = [];
        for (let j = i; j < Math.min(i + 500, EVENTS + 1); j++) {
          items.push({ resource: 'enquiries' as const, id: j, input: enquiry(j) as never });
        }
        await putMany(wp.core, items);
      }
      for (let i = 1; i <= 2000; i += 500) {
        const items = Array.from({ length: 500 },
          (_, k) => ({ resource: 'bookings' as const, id: i + k, input: booking(i + k) as never }));
        await putMany(wp.core, items, { events: false });
      }
      const permissions = ['bookings.list', 'bookings.read'];
      const created = await createApiKey(wp.core, { label: 'bench', permissions, rateLimit: 1_000_000 });
      key = { key: created.key, secret: created.secret };
    } finally {
      await wp.close();
    }
    const before = BEFORE_REF ? beforeTree(BEFORE_REF) : undefined;
    // Copied before anything connects to the database (a template must have no connections).
    const beforeUrl = before ? await copyForBefore(server, dbName, databaseUrl, before) : undefined;
    await admin.connect();
    await meter.connect();
    const total = EVENTS * WEBHOOKS;
    const setup = { databaseUrl, admin, meter, receiver, total };
    const concurrency = Math.min(config.deliveryConcurrency, WEBHOOKS * config.perWebhookConcurrency);
    const fromSource = before ? { tree: ROOT } : {};
    const cpuProfDir = CPU_PROF ? { cpuProfDir: CPU_PROF } : {};

    const drainReport: Record<string, unknown> = {};
    if (DRAIN) {
      log('warm-up: a drain by 1 worker, then the bare loop (untimed)…');
      await drain(setup, 1, fromSource);
      const { rows } = await admin.query('SELECT request_body FROM delivery_attempts LIMIT 1');
      const body = rows[0].request_body as string; // the bare loop posts what the workers post
      await bareLoop(setup, concurrency, body);
      type Turn = Record<string, Awaited<ReturnType<typeof drain>> | Awaited<ReturnType<typeof bareLoop>>>;
      const turns: Turn[] = [];
      for (let r = 1; r <= ROUNDS; r++) {
        const turn: Turn = {};
        turn.bare_loop = await bareLoop(setup, concurrency, body);
        log(`round ${r}/${ROUNDS}: bare loop ${turn.bare_loop.requests_per_second} requests/s`);
        for (const n of WORKERS) {
          turn[`workers_${n}`] = await drain(setup, n, { ...fromSource, ...(n === 1 ? cpuProfDir : {}) });
          log(`round ${r}/${ROUNDS}: ${n} worker(s) ${JSON.stringify(turn[`workers_${n}`])}`);
          if (before && n === 1) {
            turn.before_workers_1 = await drain(setup, 1, { tree: before });
            log(`round ${r}/${ROUNDS}: 1 worker of ${BEFORE_REF} ${JSON.stringify(turn.before_workers_1)}`);
          }
        }
        turns.push(turn);
      }
      const rate = (t: Turn, k: string) => {
        const x = t[k] as { deliveries_per_second?: number; requests_per_second?: number };
        return x.deliveries_per_second ?? x.requests_per_second ?? NaN;
      };
      for (const k of Object.keys(turns[0])) {
        const medianTurn = [...turns].sort((a, b) => rate(a, k) - rate(b, k))[Math.floor(turns.length / 2)];
        drainReport[k] = {
          ...medianTurn[k],
          vs_1_worker: k === 'bare_loop' ? undefined
            : round3(median(turns.map((t) => rate(t, k) / rate(t, 'workers_1')))),
          vs_bare_loop: round3(median(turns.map((t) => rate(t, k) / rate(t, 'bare_loop')))),
          rounds: turns.map((t) => rate(t, k)),
        };
      }
    }

    let api: Record<string, unknown> = {};
    if (process.env.BENCH_API !== '0' && (await hasRedis())) {
      const apiSetup = { databaseUrl, redisUrl: REDIS_URL, meter, key, connections: 8, durationS: API_SECONDS,
        port: 19_300 + Math.floor(Math.random() * 500) };
      const trees = before ? {
        after: { tree: ROOT, databaseUrl }, before: { tree: before, databaseUrl: beforeUrl! },
      } : {};
      api = await apiRounds(apiSetup, ROUNDS, trees, log);
    }

    const out = {
      benchmark: 'scale-out on PostgreSQL: webhook drain by 1, 2, 4 worker processes; '
        + 'REST API by 1 and 2 API processes',
      events: EVENTS, webhooks: WEBHOOKS, deliveries: total, rounds: ROUNDS, before_ref: BEFORE_REF ?? null,
      reported: 'each configuration: its median round; vs_1_worker / vs_1_process / vs_bare_loop: median of the '
        + 'per-round ratios; cpu_seconds from /proc (utime+stime) per party, cpu_us_per_delivery = cpu / deliveries',
      config: { deliveryConcurrency: config.deliveryConcurrency, perWebhookConcurrency: config.perWebhookConcurrency,
        bare_loop_concurrency: concurrency, api_connections: 8, api_seconds: API_SECONDS },
      machine: { cpus: cpus().length, node: process.version, load_average_1m: Number(loadavg()[0].toFixed(2)) },
      date: new Date().toISOString(),
      drain: drainReport,
      api,
    };
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench', 'results', 'scale.json'), `${JSON.stringify(out, null, 2)}\n`);
    console.log(JSON.stringify(out, null, 2));
  } finally {
    receiver.stop();
    await admin.end().catch(() => {});
    await meter.end().catch(() => {});
    await server.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
    await server.query(`DROP DATABASE IF EXISTS ${dbName}_before WITH (FORCE)`).catch(() => {});
    await server.end();
  }
}

await main();
