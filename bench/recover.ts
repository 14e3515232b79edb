// Recover of 50,000 deliveries (npm run bench:recover [-- --postgres]): 50,000 failed deliveries of one webhook are
// seeded in bulk, then a recover is started through the admin API of a running `serve` (API + worker, its own
// process) while wrk loads the REST API (GET /v1/bookings, cache off, so every request reads the database) and a
// host write every 250 ms queues a delivery to a second webhook. Reported: time until the recover job has queued all
// 50,000, time until the receiver (its own process) has all 50,000, wrk's p50/p99 before, while the recover queues
// and while the worker drains, the host writes' latency and the second webhook's delivery latency (host write sent →
// receiver has it) meanwhile.
// BENCH_RECOVER_N (default 50,000), BENCH_DURATION_S (the "before" wrk run, default 10).
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { createWaypost } from '../src/sdk.js';
import { childUrl } from './child-url.js';
import { needWrk } from './need-wrk.js';
import { createLogger } from '../src/log.js';
import { createApiKey } from '../src/api/keys.js';
import { rotateAdminToken } from '../src/admin/token.js';
import { createWebhook } from '../src/webhooks/manage.js';
import { newId } from '../src/ids.js';
import { putMany } from '../src/host/write.js';
import type { InputRecords, Resource } from '../src/records/schemas.js';

const N = Number(process.env.BENCH_RECOVER_N ?? 50_000);
const BEFORE_S = Number(process.env.BENCH_DURATION_S ?? 10);
const POSTGRES = process.argv.includes('--postgres');
const PG_URL = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const HERE = resolve(new URL('..', import.meta.url).pathname);
const OTHER_FROM = 10_000_000; // record ids of the second webhook's bookings (the recovered events are 1..N)
const HOST_TOKEN = 'bench-recover-host-token';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function databaseUrl(): Promise<string> {
  if (!POSTGRES) return `sqlite:${join(mkdtempSync(join(tmpdir(), 'waypost-bench-recover-')), 'waypost.db')}`;
  const schema = `bench_recover_${Date.now()}`;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema},public`);
  return url.toString();
}

const booking = (id: number) => {
  const when = new Date(Date.UTC(2024, 0, 1) + id * 60_000).toISOString();
  return {
    status: 'booked', currency: 'EUR', total_amount: `${(id % 900) + 100}.00`, paid_amount: '50.00', booked_at: when,
    customer: { id: (id % 500) + 1, email: `customer${id % 500}@example.com`, first_name: 'Ana', last_name: 'Silva' },
    trips: [{ trip_id: (id % 5) + 1, title: 'Douro Valley Walk', start_date: '2027-05-01', travellers: 2,
      line_items: [{ label: 'Adult', quantity: 2, price: '100.00', total: '200.00' }] }],
    engine_version: '6.8.0', cart_version: '4.1', created_at: when, updated_at: when,
  } as InputRecords['bookings'];
};

/** 2,000 bookings to read, two webhooks, N failed deliveries of the first (bulk inserts), keys and tokens. */
async function seed(url: string, receiver: string) {
  const wp = await createWaypost({ env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' },
    logger: createLogger('warn', process.stderr), config: { databaseUrl: url } });
  try {
    const items = Array.from({ length: 2_000 }, (_, i) => ({ resource: 'bookings' as Resource, id: i + 1,
      input: booking(i + 1) }));
    await putMany(wp.core, items, { events: false });
    const key = await createApiKey(wp.core, { label: 'bench', permissions: ['bookings.list', 'bookings.read'] });
    const recovered = await createWebhook(wp.core, { name: 'Recovered', url: `${receiver}/recovered`,
      events: ['customer.created'] });
    const other = await createWebhook(wp.core, { name: 'Other', url: `${receiver}/other`,
      events: ['booking.created'] });
    const at = new Date(Date.now() - 3_600_000).toISOString();
    const started = Date.now();
    for (let i = 0; i < N; i += 1_000) {
      const events = Array.from({ length: Math.min(1_000, N - i) }, (_, j) => ({
        id: newId('evt'), type: 'customer.created', resource: 'customers', record_id: i + j + 1,
        data: JSON.stringify({ id: i + j + 1 }), test: 0, created_at: at,
      }));
      await wp.core.db.transaction().execute(async (trx) => {
        await trx.insertInto('events').values(events).execute();
        await trx.insertInto('deliveries').values(events.map((e) => ({
          id: newId('dlv'), webhook_id: recovered.id, event_id: e.id, event_type: e.type, status: 'failed' as const,
          attempts: 8, next_attempt_at: null, lease_owner: null, lease_until: null, last_status: 503,
          last_error: 'HTTP 503', cancel_reason: null, redelivery_of: null, created_at: at, updated_at: at,
          completed_at: at,
        }))).execute();
      });
    }
    const seedS = (Date.now() - started) / 1000;
    return { api: { 'access-token': key.key, 'access-secret': key.secret }, admin: await rotateAdminToken(wp.core),
      recovered: recovered.id, other: other.id, since: at, seedS };
  } finally {
    await wp.close();
  }
}

const CHILD = `const [databaseUrl, hostToken] = process.argv.slice(2);
const { createWaypost } = await import(${JSON.stringify(join(HERE, 'src/sdk.ts'))});
const { createLogger } = await import(${JSON.stringify(join(HERE, 'src/log.ts'))});
const wp = await createWaypost({ env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true', WAYPOST_HOST_TOKEN: hostToken },
  logger: createLogger('warn', process.stderr),
  config: { databaseUrl, port: 0, cacheTtlS: 0, rateLimit: 100000000, authFailLimit: 100000000 } });
const { url } = await wp.serve('all');
process.stdout.write(url + '\\n');
process.on('SIGTERM', async () => { await wp.close(); process.exit(0); });
`;

function startServer(url: string): Promise<{ child: ChildProcess; url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'waypost-bench-recover-'));
  writeFileSync(join(dir, 'child.mts'), CHILD);
  const child = spawn(process.execPath, ['--import', 'tsx', join(dir, 'child.mts'), url, HOST_TOKEN],
    { cwd: HERE, stdio: ['ignore', 'pipe', 'inherit'] });
  return childUrl(child);
}

function startReceiver(): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(join(HERE, 'bench/webhook-receiver.ts'), [], { execArgv: ['--import', 'tsx'] });
  return new Promise((ok) => child.once('message', (m: { port: number }) =>
    ok({ child, url: `http://127.0.0.1:${m.port}` })));
}

function report(child: ChildProcess): Promise<{ ids: number[]; times: number[] }> {
  return new Promise((ok) => {
    const on = (m: { type: string; ids: number[]; times: number[] }) => {
      if (m.type !== 'report') return;
      child.off('message', on);
      ok(m);
    };
    child.on('message', on);
    child.send({ type: 'report' });
  });
}

function wrkArgs(url: string, headers: Record<string, string>, seconds: number): string[] {
  const h = Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
  return ['-t1', '-c8', `-d${seconds}s`, '--latency', ...h, `${url}/rest/waypost/api/v1/bookings?perpage=20`];
}

function parseWrk(out: string) {
  const ms = (label: string) => {
    const m = new RegExp(`${label}\\s+([\\d.]+)(us|ms|s)`).exec(out);
    return m ? Number(m[1]) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[m[2]] : NaN;
  };
  return { requests_per_second: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN)),
    latency_ms: { p50: ms('50%'), p90: ms('90%'), p99: ms('99%') },
    non_2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0) };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]);
};

async function main() {
  needWrk();
  const url = await databaseUrl();
  const receiver = await startReceiver();
  console.error(`seeding ${N} failed deliveries on ${POSTGRES ? 'PostgreSQL' : 'SQLite'}…`);
  const s = await seed(url, receiver.url);
  const server = await startServer(url);
  try {
    await measure(url, s, server.url, receiver.child);
  } finally {
    server.child.kill('SIGTERM');
    receiver.child.send({ type: 'stop' });
  }
}

async function measure(databaseUrlUsed: string, s: Awaited<ReturnType<typeof seed>>, serverUrl: string,
  receiverChild: ChildProcess) {
  const server = { url: serverUrl };
  const receiver = { child: receiverChild };
  const admin = { authorization: `Bearer ${s.admin}`, 'content-type': 'application/json' };
  const probe = await fetch(`${server.url}/rest/waypost/api/v1/bookings?perpage=20`, { headers: s.api });
  if (probe.status !== 200) throw new Error(`GET /v1/bookings answered ${probe.status}: ${await probe.text()}`);
  console.error(`before: wrk ${BEFORE_S} s`);
  const before = parseWrk(execFileSync('wrk', wrkArgs(server.url, s.api, BEFORE_S), { encoding: 'utf8' }));

  console.error('during: recover + wrk + a host write every 250 ms');
  // wrk while the recover queues (stopped when the job is done), then again while the worker drains.
  const startLoad = () => {
    const child = spawn('wrk', wrkArgs(server.url, s.api, 3_600), { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    return async () => {
      child.kill('SIGINT');
      await new Promise((r) => child.once('close', r));
      return parseWrk(out);
    };
  };
  let stopLoad = startLoad();
  await sleep(1_000);
  const t0 = Date.now();
  const started = await fetch(`${server.url}/admin/api/webhooks/${s.recovered}/recover`,
    { method: 'POST', headers: admin, body: JSON.stringify({ since: s.since }) });
  const startMs = Date.now() - t0;
  const job = await started.json() as { id: string; total: number | null };
  let countedS = NaN; // the POST answers before the job has counted its total
  let queuedS = NaN;
  let deliveredS = NaN;
  const writes: Array<{ id: number; sent: number; ms: number }> = [];
  let writing = true;
  const writer = (async () => {
    for (let id = OTHER_FROM; writing; id++) {
      const sent = Date.now();
      const res = await fetch(`${server.url}/host/v1/bookings/${id}`, { method: 'PUT',
        headers: { authorization: `Bearer ${HOST_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(booking(id)) });
      await res.arrayBuffer();
      writes.push({ id, sent, ms: Date.now() - sent });
      await sleep(250);
    }
  })();
  let duringQueue: ReturnType<typeof parseWrk> | null = null;
  const queuedWatch = (async () => {
    for (;;) {
      const j = await (await fetch(`${server.url}/admin/api/webhooks/${s.recovered}/recover/${job.id}`,
        { headers: admin })).json() as { status: string; total: number | null };
      if (j.total !== null && Number.isNaN(countedS)) countedS = (Date.now() - t0) / 1000;
      if (j.total !== null) job.total = j.total;
      if (j.status !== 'running') {
        const at = (Date.now() - t0) / 1000;
        duringQueue = await stopLoad();
        stopLoad = startLoad();
        return at;
      }
      await sleep(100);
    }
  })();
  let progress: Array<{ s: number; queued: number; received: number }> = [];
  for (;;) {
    await sleep(1_000);
    const j = await (await fetch(`${server.url}/admin/api/webhooks/${s.recovered}/recover/${job.id}`,
      { headers: admin })).json() as { status: string; queued: number };
    const r = await report(receiver.child);
    const received = r.ids.filter((id) => id < OTHER_FROM).length;
    progress.push({ s: Math.round((Date.now() - t0) / 1000), queued: j.queued, received });
    console.error(`  ${progress.at(-1)!.s} s: queued ${j.queued} (${j.status}), received ${received}`);
    if (received >= N) {
      deliveredS = (Date.now() - t0) / 1000;
      break;
    }
    if (Date.now() - t0 > 1_800_000) throw new Error('not all delivered in 30 minutes');
  }
  writing = false;
  await writer;
  queuedS = await queuedWatch;
  const duringDrain = await stopLoad();
  await sleep(2_000);
  const r = await report(receiver.child);
  const arrived = new Map<number, number>();
  r.ids.forEach((id, i) => { if (id >= OTHER_FROM) arrived.set(id, r.times[i]); });
  const otherLatency = writes.filter((w) => arrived.has(w.id)).map((w) => arrived.get(w.id)! - w.sent);
  if (progress.length > 40) progress = progress.filter((_, i) => i % Math.ceil(progress.length / 40) === 0);

  const result = {
    date: new Date().toISOString(), database: POSTGRES ? 'postgres' : 'sqlite', cpus: cpus().length,
    deliveries: N, seed_s: Number(s.seedS.toFixed(1)), post_recover_ms: startMs, job_total: job.total,
    total_counted_s: Number(countedS.toFixed(1)),
    time_to_queue_all_s: Number(queuedS.toFixed(1)), time_to_receive_all_s: Number(deliveredS.toFixed(1)),
    delivered_per_second: Math.round(N / deliveredS),
    api_before: before, api_while_queueing: duringQueue, api_while_draining: duringDrain,
    host_writes: { count: writes.length, p50_ms: pct(writes.map((w) => w.ms), 50),
      p99_ms: pct(writes.map((w) => w.ms), 99), max_ms: Math.max(...writes.map((w) => w.ms)) },
    other_webhook_delivery_ms: { count: otherLatency.length, of: writes.length, p50: pct(otherLatency, 50),
      p99: pct(otherLatency, 99), max: Math.max(...otherLatency) },
    progress,
    notes: 'wrk -t1 -c8 on GET /rest/waypost/api/v1/bookings?perpage=20 (cache off: every request reads the '
      + 'database); "while_queueing" runs from 1 s before the recover starts until its job is done, '
      + '"while_draining" from then until the receiver has all deliveries; the recover runs in the server process '
      + '(serve all: API + worker, default concurrency 64, 16 per webhook); 2-core machine shared with other agents.',
  };
  mkdirSync(join(HERE, 'bench/results'), { recursive: true });
  const file = join(HERE, 'bench/results', POSTGRES ? 'recover-postgres.json' : 'recover.json');
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify({ ...result, progress: undefined }, null, 2));
  void databaseUrlUsed;
}

await main();
