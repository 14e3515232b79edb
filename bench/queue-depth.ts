// The queue gauges' scrape-time read with a deep backlog: BENCH_QUEUE_N (default 1,000,000) pending deliveries, the
// statement the gauges run now (depth counted up to QUEUE_DEPTH_CAP, oldest due by index) against the one they ran
// before (count and min over every pending delivery). `npm run bench:queue-depth [-- --postgres]`;
// bench/results/queue-depth*.json.
import { writeFileSync, mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { createWaypost } from '../src/sdk.js';
import { createLogger } from '../src/log.js';
import { createWebhook } from '../src/webhooks/manage.js';
import { QUEUE_DEPTH_CAP, queueFigures } from '../src/webhooks/delivery/metrics.js';

const HERE = resolve(new URL('..', import.meta.url).pathname);
const POSTGRES = process.argv.includes('--postgres');
const N = Number(process.env.BENCH_QUEUE_N ?? 1_000_000);
const RUNS = 7;

let dropSchema = async () => undefined as unknown;

async function databaseUrl(): Promise<string> {
  if (!POSTGRES) return `sqlite:${join(mkdtempSync(join(tmpdir(), 'waypost-bench-queue-')), 'waypost.db')}`;
  const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  dropSchema = async () => client.query(`DROP SCHEMA ${schema} CASCADE`).finally(() => client.end());
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema},public`);
  return url.toString();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function time(fn: () => Promise<unknown>): Promise<{ median_ms: number; runs_ms: number[] }> {
  await fn(); // warm the cache: a scrape every 15 s finds the index in memory
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    runs.push(Number((performance.now() - t).toFixed(2)));
  }
  return { median_ms: median(runs), runs_ms: runs };
}

const wp = await createWaypost({ env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' }, logger: createLogger('silent'),
  config: { databaseUrl: await databaseUrl() } });
try {
  const webhookId = (await createWebhook(wp.core, { name: 'Bench', url: 'http://127.0.0.1:9/in',
    events: ['booking.created'] })).id;
  const now = new Date().toISOString();
  const t0 = Date.now();
  console.error(`seeding ${N.toLocaleString()} pending deliveries on ${POSTGRES ? 'PostgreSQL' : 'SQLite'}…`);
  const series = sql`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${sql.lit(N)})`;
  await sql`${series} INSERT INTO events (id, type, resource, record_id, data, test, created_at)
    SELECT 'evt_' || i, 'booking.created', 'bookings', i, '{}', 0, ${now} FROM s`.execute(wp.core.db);
  await sql`${series} INSERT INTO deliveries (id, webhook_id, event_id, event_type, status, attempts, next_attempt_at,
      created_at, updated_at)
    SELECT 'dlv_' || (10000000 + i), ${webhookId}, 'evt_' || i, 'booking.created', 'pending', 0, 1000 + i,
      ${now}, ${now} FROM s`.execute(wp.core.db);
  await sql`ANALYZE`.execute(wp.core.db);
  const seedS = (Date.now() - t0) / 1000;

  const before = await time(() => wp.core.db.selectFrom('deliveries')
    .select((eb) => [eb.fn.countAll().as('depth'), eb.fn.min('next_attempt_at').as('oldest')])
    .where('status', '=', 'pending').executeTakeFirstOrThrow());
  let figures: Awaited<ReturnType<typeof queueFigures>> = null;
  const after = await time(async () => { figures = await queueFigures(wp.core); });
  const result = {
    date: new Date().toISOString(), database: POSTGRES ? 'postgres' : 'sqlite', cpus: cpus().length,
    load_average: Number(loadavg()[0].toFixed(1)), pending: N, seed_s: Number(seedS.toFixed(1)),
    cap: QUEUE_DEPTH_CAP, gauge_reads: figures,
    before_count_all: before, after_capped: after,
    notes: 'median of 7 runs after one warm-up; "before" is the statement the gauges ran until the cap '
      + '(count(*) and min(next_attempt_at) over every pending delivery), "after" is queueFigures()',
  };
  console.log(JSON.stringify(result, null, 2));
  const file = join(HERE, 'bench/results', POSTGRES ? 'queue-depth-postgres.json' : 'queue-depth.json');
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await wp.close();
  await dropSchema();
}
