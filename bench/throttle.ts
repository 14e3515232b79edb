// Throttle accuracy (`npm run bench:throttle`): a webhook limited to BENCH_RATE deliveries a second (default 20)
// receives a burst of BENCH_DELIVERIES (400) from two worker processes (`bin/waypost.js serve --role worker`, the
// build: run `npm run build` first) on a fresh database; the local receiver records each arrival and which worker
// sent it. The criterion: 20 ± 2 per second over 10 s with two workers.
// Results go to bench/results/throttle.json (BENCH_DIALECT=sqlite: throttle-sqlite.json): arrivals per second
// (per worker too), their min/max/mean over the full seconds, and the busiest sliding second.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createWaypost } from '../src/sdk.js';
import { createLogger } from '../src/log.js';
import { putMany } from '../src/host/write.js';
import { freshDatabaseUrl, type TestDialect } from '../test/helpers/db.js';
import { PG_URL } from '../test/helpers/services.js';
import { startReceiver } from '../test/webhooks/engine/receiver.js';
import { addWebhook } from '../test/webhooks/engine/fixtures.js';
import { busiestWindow, perSecond } from '../test/webhooks/throttle/arrivals.js';
import { sentBy, startWorkerProcess } from '../test/webhooks/throttle/processes.js';

const RATE = Number(process.env.BENCH_RATE ?? 20);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 400);
const DIALECT = (process.env.BENCH_DIALECT ?? 'postgres') as TestDialect;
const WORKERS = ['WorkerA', 'WorkerB'];

/** A new PostgreSQL database (not only a schema), dropped at the end. */
async function freshPostgres(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `waypost_throttle_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

const stats = (xs: number[]) => ({
  min: Math.min(...xs), max: Math.max(...xs), mean: Number((xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2)),
});

async function main(): Promise<void> {
  const db = DIALECT === 'postgres'
    ? await freshPostgres() : { url: await freshDatabaseUrl('sqlite'), drop: async () => {} };
  const wp = await createWaypost({
    env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' }, config: { databaseUrl: db.url }, logger: createLogger('silent'),
  });
  const receiver = await startReceiver();
  const workers = WORKERS.map((name) => startWorkerProcess(name, db.url, { built: true }));
  try {
    await addWebhook(wp.core, receiver.url, { events: ['enquiry.created'], maxPerSecond: RATE });
    await Promise.all(workers.map((w) => w.ready));
    // The burst: every delivery queued at once (one transaction), then the workers are woken.
    const records = Array.from({ length: DELIVERIES }, (_, i) => ({
      resource: 'enquiries' as const, id: i + 1, input: { full_name: `Guest ${i + 1}`, email: `g${i + 1}@example.com` },
    }));
    await putMany(wp.core, records);
    const requests = await receiver.waitFor(DELIVERIES, (DELIVERIES / RATE) * 1000 + 60_000);
    const times = requests.map((r) => r.at);
    const counts = perSecond(times);
    const full = counts.slice(0, Math.floor(DELIVERIES / RATE)); // the last second may be partial
    const byWorker = Object.fromEntries(WORKERS.map((name) => [name, perSecond(times).map(() => 0)]));
    const start = Math.min(...times);
    for (const r of requests) {
      const who = sentBy(r, WORKERS);
      if (who) byWorker[who][Math.floor((r.at - start) / 1000)]++;
    }
    const first10 = full.slice(0, 10);
    const result = {
      benchmark: `throttle accuracy: ${DELIVERIES} deliveries queued at once to a webhook limited to ${RATE}/s, `
        + `two worker processes (bin/waypost.js serve --role worker)`,
      dialect: DIALECT,
      rate_per_second: RATE,
      deliveries: DELIVERIES,
      seconds: Number(((Math.max(...times) - start) / 1000).toFixed(2)),
      per_second: counts,
      per_second_by_worker: byWorker,
      full_seconds: { count: full.length, ...stats(full) },
      first_10_seconds: { ...stats(first10), within_2: first10.every((n) => Math.abs(n - RATE) <= 2) },
      busiest_sliding_second: busiestWindow(times),
      machine: { cpus: cpus().length, node: process.version, load_average_1m: Number(loadavg()[0].toFixed(2)) },
      date: new Date().toISOString(),
    };
    mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
    const file = DIALECT === 'postgres' ? 'throttle.json' : `throttle-${DIALECT}.json`;
    writeFileSync(new URL(`./results/${file}`, import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    for (const w of workers) await w.stop();
    await receiver.close();
    await wp.close();
    await db.drop();
  }
}

await main();
