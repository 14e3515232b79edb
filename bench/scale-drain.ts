// For bench/scale.ts: the webhook drain. The backlog (events × webhooks deliveries) is queued once; before each
// drain it is reset (attempts deleted, deliveries pending again, VACUUM FULL) and held back (due in 2100) while
// the worker processes start; one transaction then makes it due and NOTIFYs, and the clock runs until the receiver
// has every delivery. The bare undici loop (bench/webhooks.ts's baseline) posts the same body at the same
// concurrency. CPU seconds of every party come from /proc (scale-procs.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';
import { CpuMeter, backendPids, pidsNamed, startWaypost, withApplicationName } from './scale-procs.js';

const FAR = 4_102_444_800_000; // 2100-01-01: queued but not due
const CHANNEL = 'waypost_deliveries';

export interface Receiver {
  url: string;
  pid: number;
  expect(n: number): Promise<void>;
  reset(): Promise<void>;
}

export interface DrainSetup {
  databaseUrl: string;
  admin: pg.Client; // connected to the bench database
  meter: pg.Client; // the same, for the CPU meter's look-ups (a pg client runs one query at a time)
  receiver: Receiver;
  total: number;
}

const now = () => performance.timeOrigin + performance.now();

const FILLFACTOR_MIGRATION = '0015_deliveries_fillfactor';

/**
 * Every delivery pending again and not due; the previous drain's dead rows vacuumed. `baseSchema`: the schema as
 * a base commit without migration 0015 left it (no fillfactor, no record of the migration, which that commit would
 * refuse to run beside), for a BENCH_BEFORE_REF turn; otherwise 0015 is (again) applied.
 */
export async function resetBacklog(admin: pg.Client, baseSchema = false): Promise<void> {
  if (baseSchema) {
    await admin.query('ALTER TABLE deliveries RESET (fillfactor)');
    await admin.query('DELETE FROM kysely_migration WHERE name = $1', [FILLFACTOR_MIGRATION]);
  } else {
    await admin.query('ALTER TABLE deliveries SET (fillfactor = 50)');
    await admin.query(`INSERT INTO kysely_migration (name, timestamp) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
      [FILLFACTOR_MIGRATION, new Date().toISOString()]);
  }
  await admin.query('DELETE FROM delivery_attempts');
  await admin.query(`UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = ${FAR},
    lease_owner = NULL, lease_until = NULL, last_status = NULL, last_error = NULL, cancel_reason = NULL,
    completed_at = NULL`);
  // Rewritten compactly, as freshly queued rows are (full pages: a claim's update finds no room beside its row).
  await admin.query('VACUUM FULL deliveries, delivery_attempts');
  await admin.query('ANALYZE deliveries, delivery_attempts');
}

function perDelivery(cpu: Record<string, number>, total: number): Record<string, number> {
  return Object.fromEntries(Object.entries(cpu).map(([k, s]) => [k, Math.round((s / total) * 1e6)]));
}

/** One drain by `workers` worker processes (from the build, or from `tree`'s sources). */
export async function drain(s: DrainSetup, workers: number,
  options: { tree?: string; cpuProfDir?: string } = {}) {
  const migration = (tree: string) => join(tree, 'src', 'store', 'migrations', `${FILLFACTOR_MIGRATION}.ts`);
  const baseSchema = options.tree !== undefined && !existsSync(migration(options.tree));
  await resetBacklog(s.admin, baseSchema);
  const app = `wpscale-w${workers}-${Date.now()}`;
  const env = {
    DATABASE_URL: withApplicationName(s.databaseUrl, app), WAYPOST_ALLOW_PRIVATE_TARGETS: 'true', PORT: '0',
  };
  const procs = await Promise.all(Array.from({ length: workers }, () => startWaypost('worker', env, options)));
  try {
    const meter = new CpuMeter(async () => {
      const backends = await backendPids(s.meter, app);
      return {
        workers: procs.map((p) => p.pid),
        worker_backends: backends,
        postgres_other: pidsNamed('postgres').filter((pid) => !backends.includes(pid)),
        receiver: [s.receiver.pid],
      };
    });
    await s.receiver.reset();
    const reached = s.receiver.expect(s.total);
    await meter.start();
    await s.admin.query('BEGIN');
    await s.admin.query(`UPDATE deliveries SET next_attempt_at = ${Date.now()}`);
    await s.admin.query(`SELECT pg_notify('${CHANNEL}', '')`);
    await s.admin.query('COMMIT');
    const started = now();
    await reached;
    const seconds = (now() - started) / 1000;
    // The last success batches are written a few ms after the receiver has them.
    for (let i = 0; i < 200; i++) {
      const { rows } = await s.admin.query(`SELECT count(*)::int AS n FROM deliveries WHERE status <> 'succeeded'`);
      if (rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const cpu = await meter.stop();
    const { rows } = await s.admin.query('SELECT count(*)::int AS n FROM delivery_attempts');
    return {
      workers, deliveries: s.total, seconds: Number(seconds.toFixed(2)),
      deliveries_per_second: Math.round(s.total / seconds), attempts_written: rows[0].n as number,
      cpu_seconds: cpu, cpu_us_per_delivery: perDelivery(cpu, s.total),
    };
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
  }
}

/** The bare undici POST loop: the ceiling for a sender of this body at this concurrency, on this machine. */
export async function bareLoop(s: DrainSetup, concurrency: number, body: string) {
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 256 });
  const meter = new CpuMeter(async () => ({ bare_loop: [process.pid], receiver: [s.receiver.pid] }));
  await s.receiver.reset();
  const reached = s.receiver.expect(s.total);
  await meter.start();
  let sent = 0;
  const started = now();
  const loop = async () => {
    while (sent < s.total) {
      sent++;
      const headers = { 'content-type': 'application/json' };
      const res = await request(s.receiver.url, { method: 'POST', body, headers, dispatcher: agent });
      await res.body.text();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  await reached;
  const seconds = (now() - started) / 1000;
  const cpu = await meter.stop();
  await agent.close();
  return {
    concurrency, requests: s.total, seconds: Number(seconds.toFixed(2)),
    requests_per_second: Math.round(s.total / seconds), cpu_seconds: cpu, cpu_us_per_request: perDelivery(cpu, s.total),
  };
}
