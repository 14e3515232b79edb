// Host writes with every event stored (npm run bench:host-writes; issue 35): since 77c84c8 an event is stored even
// when no webhook subscribes to it, and on PostgreSQL its write also takes the feed's commit-order advisory lock and
// sends a NOTIFY (src/webhooks/outbox.ts recordEvent). This measures what that adds, against a baseline tree
// (BENCH_BASELINE_REF, default 77c84c8^, see before-tree.ts), each tree as a real `waypost serve --role api` child
// process (role api: no delivery worker, so only the write path is measured; deliveries are queued, never sent):
//   (a) the checkout: PUT /host/v1/bookings/{id} of distinct new bookings, wrk with BENCH_CONNECTIONS (4) for
//       BENCH_PUT_SECONDS (4) after BENCH_WARM_SECONDS (2) of the same load: requests/s and latency p50/p95/p99;
//   (b) the bridge's backfill: POST /host/v1/batch of 100 booking puts per request (the bridge's batch client),
//       BENCH_BATCH_CONNECTIONS (1: the backfill sends one batch at a time) for BENCH_BATCH_SECONDS (4) right after
//       (a): records/s (from the mean batch time) and per-batch p50/p95/p99;
// each with 0 webhooks (the new cost: every event stored) and with 1 webhook subscribed to booking.* (a local receiver
// answering 200; never called, the worker being off). A turn is one tree on a fresh database (SQLite file or
// PostgreSQL schema; seeded by host-writes-seed.ts on that tree), (a) then (b); this tree and the baseline take turns
// for BENCH_ROUNDS rounds (default 3; this, base, then base, this, …). Reported: each side's figures as the median of
// its rounds, and the median of the per-round ratios (this / base). Any non-2xx answer, socket error or batch item
// that is not 200/201 fails the run. BENCH_DIALECT: sqlite, postgres, or both (default: both when PostgreSQL is up).
// Results: bench/results/host-writes.json.
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, symlinkSync, writeFileSync }
  from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freshDatabaseUrl, type TestDialect } from '../test/helpers/db.js';
import { freePort, hasPostgres, PG_URL } from '../test/helpers/services.js';
import { beforeTree, ROOT } from './before-tree.js';
import { HOST_TOKEN, wrk } from './host-writes-wrk.js';
import { needWrk } from './need-wrk.js';

const BASELINE_REF = process.env.BENCH_BASELINE_REF ?? '77c84c8^';
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const BATCH_CONNECTIONS = Number(process.env.BENCH_BATCH_CONNECTIONS ?? 1);
const PUT_S = Number(process.env.BENCH_PUT_SECONDS ?? 4);
const BATCH_S = Number(process.env.BENCH_BATCH_SECONDS ?? 4);
const WARM_S = Number(process.env.BENCH_WARM_SECONDS ?? 2); // before (a); (b) then finds a warm server
const BATCH_SIZE = 100;
const DIALECTS: TestDialect[] = process.env.BENCH_DIALECT
  ? [process.env.BENCH_DIALECT as TestDialect]
  : (await hasPostgres()) ? ['sqlite', 'postgres'] : ['sqlite'];

const round = (n: number, d = 1) => Number(n.toFixed(d));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// ---------- servers, receiver, databases ----------

/** `waypost serve --role api` of a tree on a database, listening on a free port; resolves once /healthz answers. */
async function startServe(tree: string, databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const env = {
    ...process.env, HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn',
    WAYPOST_HOST_TOKEN: HOST_TOKEN, WAYPOST_RATE_LIMIT: '100000000', WAYPOST_AUTH_FAIL_LIMIT: '100000000',
  };
  // Its output goes to a file, not a pipe: wrk runs synchronously here, and a full pipe would stall the server.
  const log = join(mkdtempSync(join(tmpdir(), 'waypost-bench-host-writes-')), 'serve.log');
  const fd = openSync(log, 'w');
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--role', 'api'],
    { cwd: tree, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const output = () => readFileSync(log, 'utf8').slice(-4000);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000; // a first start may build the console (web/dist missing)
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serve (${tree}) exited with ${child.exitCode}:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`serve (${tree}) did not answer /healthz in 120 s:\n${output()}`);
    const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (ok) return { child, url };
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

function seed(tree: string, databaseUrl: string, receiverUrl: string, webhooks: number): Promise<void> {
  const child = fork(join(import.meta.dirname, 'host-writes-seed.ts'),
    [tree, databaseUrl, receiverUrl, String(webhooks)], { execArgv: ['--import', 'tsx'] });
  return new Promise((ok, fail) => child.once('exit', (code) =>
    (code === 0 ? ok() : fail(new Error(`seeding on ${tree} exited with ${code}`)))));
}

async function dropDatabase(databaseUrl: string) {
  const schema = /search_path=(t_\w+)/.exec(decodeURIComponent(databaseUrl))?.[1];
  if (!schema) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

function startReceiver(): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(join(import.meta.dirname, 'webhook-receiver.ts'), [], { execArgv: ['--import', 'tsx'] });
  return new Promise((ok) => child.once('message', (m: { port: number }) =>
    ok({ child, url: `http://127.0.0.1:${m.port}/hook` })));
}

// ---------- one turn: one tree, a fresh database, (a) then (b) ----------

interface Turn {
  put: { requests_per_second: number; p50_ms: number; p95_ms: number; p99_ms: number; requests: number };
  batch: { records_per_second: number; p50_ms: number; p95_ms: number; p99_ms: number; batches: number };
}

const ms = (us: number) => round(us / 1000, 2);

async function turn(tree: string, dialect: TestDialect, webhooks: number, receiverUrl: string): Promise<Turn> {
  const databaseUrl = await freshDatabaseUrl(dialect);
  try {
    // Without a webhook, serve's own start migrates the database: no seeding process needed.
    if (webhooks > 0) await seed(tree, databaseUrl, receiverUrl, webhooks);
    const server = await startServe(tree, databaseUrl);
    try {
      // Id ranges apart: the warm-up and measured runs of (a), then (b), never write the same booking twice. (b) has
      // no warm-up of its own: the server is warm, and a warm-up's batch cut off at its end would still be written,
      // beside the measured batches, for up to a batch's time (on PostgreSQL every event takes the same lock).
      wrk(server.url, WARM_S, CONNECTIONS, 1_000_000, 0, true);
      const put = wrk(server.url, PUT_S, CONNECTIONS, 2_000_000, 0);
      const batch = wrk(server.url, BATCH_S, BATCH_CONNECTIONS, 6_000_000, BATCH_SIZE);
      return {
        put: { requests_per_second: Math.round(put.requests / (put.duration_us / 1e6)), p50_ms: ms(put.p50),
          p95_ms: ms(put.p95), p99_ms: ms(put.p99), requests: put.requests },
        // From the mean batch time (closed loop): the batch wrk cuts off at its end would bias a count low.
        batch: { records_per_second: Math.round((BATCH_SIZE * BATCH_CONNECTIONS) / (batch.mean / 1e6)),
          p50_ms: ms(batch.p50), p95_ms: ms(batch.p95), p99_ms: ms(batch.p99), batches: batch.requests },
      };
    } finally {
      await stop(server.child);
    }
  } finally {
    await dropDatabase(databaseUrl);
  }
}

// ---------- rounds, medians, ratios ----------

type Side = 'this' | 'base';
const CASE_KEYS = {
  put: ['requests_per_second', 'p50_ms', 'p95_ms', 'p99_ms'],
  batch: ['records_per_second', 'p50_ms', 'p95_ms', 'p99_ms'],
} as const;

function summarize(rounds: Array<Record<Side, Turn>>) {
  const out: Record<string, unknown> = {};
  for (const kase of ['put', 'batch'] as const) {
    const of = (side: Side, key: string) =>
      rounds.map((r) => (r[side][kase] as unknown as Record<string, number>)[key]);
    const sideMedians = (side: Side) => Object.fromEntries(CASE_KEYS[kase].map((k) => [k, median(of(side, k))]));
    out[kase] = {
      this: sideMedians('this'),
      base: sideMedians('base'),
      ratio_this_to_base: Object.fromEntries(CASE_KEYS[kase].map((k) => {
        const t = of('this', k);
        const b = of('base', k);
        return [k, round(median(t.map((x, i) => x / b[i])), 3)];
      })),
    };
  }
  return out;
}

async function main() {
  needWrk();
  const trees: Record<Side, string> = { this: ROOT, base: beforeTree(BASELINE_REF) };
  // The baseline tree shows this checkout's built console rather than building its own at its first start.
  if (!existsSync(join(trees.base, 'web/dist')) && existsSync(join(ROOT, 'web/dist'))) {
    symlinkSync(join(ROOT, 'web/dist'), join(trees.base, 'web/dist'));
  }
  const receiver = await startReceiver();
  const started = Date.now();
  const results: Array<Record<string, unknown>> = [];
  try {
    for (const dialect of DIALECTS) for (const webhooks of [0, 1]) {
      const rounds: Array<Record<Side, Turn>> = [];
      for (let r = 1; r <= ROUNDS; r++) {
        const order: Side[] = r % 2 === 1 ? ['this', 'base'] : ['base', 'this'];
        const got: Partial<Record<Side, Turn>> = {};
        for (const side of order) {
          const t = await turn(trees[side], dialect, webhooks, receiver.url);
          got[side] = t;
          console.error(`${dialect}, ${webhooks} webhook(s), round ${r}/${ROUNDS}, ${side}: `
            + `PUT ${t.put.requests_per_second}/s p50 ${t.put.p50_ms} p99 ${t.put.p99_ms} ms; `
            + `batch ${t.batch.records_per_second} records/s p50 ${t.batch.p50_ms} p99 ${t.batch.p99_ms} ms `
            + `(${Math.round((Date.now() - started) / 1000)} s)`);
        }
        rounds.push(got as Record<Side, Turn>);
      }
      results.push({ dialect, webhooks, ...summarize(rounds), rounds });
    }
  } finally {
    receiver.child.send({ type: 'stop' });
  }
  const out = {
    benchmark: 'host writes with every event stored (issue 35): PUT /host/v1/bookings/{id} of new bookings and '
      + `POST /host/v1/batch of ${BATCH_SIZE} booking puts, this tree against ${BASELINE_REF}`,
    baseline_ref: BASELINE_REF,
    baseline_sha: spawnSync('git', ['rev-parse', BASELINE_REF], { cwd: ROOT, encoding: 'utf8' }).stdout.trim(),
    rounds: ROUNDS,
    settings: { put: { connections: CONNECTIONS, seconds: PUT_S }, batch: { connections: BATCH_CONNECTIONS,
      seconds: BATCH_S, operations: BATCH_SIZE }, warm_up_seconds: { put: WARM_S, batch: 0 } },
    reported: 'this / base: each figure the median of its rounds; ratio_this_to_base: the median of the per-round '
      + 'ratios. Each turn: `waypost serve --role api` (no worker: deliveries are queued, never sent) of one tree on '
      + 'a fresh database, wrk -t1: (a) after a warm-up of the same load, (b) right after (a), its records/s from the '
      + 'mean batch time; the 1-webhook case subscribes a local '
      + 'receiver to every booking.* event',
    machine: { cpus: cpus().length, node: process.version, load_average_1m: round(loadavg()[0], 2) },
    date: new Date().toISOString(),
    seconds: Math.round((Date.now() - started) / 1000),
    results,
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/host-writes.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log(JSON.stringify({ ...out, results: results.map((r) => ({ ...r, rounds: undefined })) }, null, 2));
}

await main();
