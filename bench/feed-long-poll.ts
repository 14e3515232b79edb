// 1,000 idle long polls (GET /events?wait=30) held open by one API process: its CPU and the database's transactions
// per second while they wait, and p99 of GET /bookings (wrk) with and without them. PostgreSQL (the transaction
// count is pg_stat_database's). `npx tsx bench/feed-long-poll.ts [postgres-url]`; writes
// bench/results/feed-long-poll.json.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { writeFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { sql } from 'kysely';
import { createWaypost } from '../src/sdk.js';
import { createLogger } from '../src/log.js';
import { apiRoot } from '../src/config.js';
import { createApiKey, PERMISSIONS } from '../src/api/keys.js';
import { feedWaiters } from '../src/feed/waiters.js';
import { needWrk } from './need-wrk.js';
import { freshDatabaseUrl } from '../test/helpers/db.js';

needWrk();
const url = process.argv[2] ?? await freshDatabaseUrl('postgres'); // a fresh schema of the test database
const wp = await createWaypost({ config: { databaseUrl: url, port: 0, host: '127.0.0.1', rateLimit: 10_000_000 },
  env: { WAYPOST_HOST_TOKEN: 'bench-host-token' }, logger: createLogger('silent') });
const base = (await wp.serve('api')).url!;
const root = `${base}${apiRoot(wp.config)}`;
const key = await createApiKey(wp.core, { label: 'bench feed', permissions: [...PERMISSIONS] });
const headers = { 'access-token': key.key, 'access-secret': key.secret };
for (let i = 1; i <= 50; i++) {
  await wp.put('bookings', 900_000 + i, { status: 'booked', currency: 'EUR', total_amount: '10.00',
    engine_version: '6.8.0', cart_version: '4.1', customer: null, trips: [] });
}
const transactions = async () => Number((await sql<{ n: string }>`SELECT xact_commit + xact_rollback AS n
  FROM pg_stat_database WHERE datname = current_database()`.execute(wp.core.db)).rows[0].n);

/** wrk as a child the event loop does not wait on (the server under test runs in this process). */
async function wrk(): Promise<{ p99Ms: number; rps: number }> {
  const script = `wrk.headers["Access-Token"]="${key.key}"\nwrk.headers["Access-Secret"]="${key.secret}"\n`;
  writeFileSync('/tmp/feed-bench.lua', script);
  const { stdout: out } = await promisify(execFile)('wrk',
    ['-t1', '-c16', '-d10s', '--latency', '-s', '/tmp/feed-bench.lua', `${root}/bookings`]);
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out)!;
  const unit = { us: 0.001, ms: 1, s: 1000 }[p99[2] as 'us' | 'ms' | 's'];
  return { p99Ms: Number(p99[1]) * unit, rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]) };
}

/** The process's CPU and the database's transactions per second over 10 s of doing nothing but holding `waiting`. */
interface Idle { waiting: number; cpuPercent: number; transactionsPerSecond: number }
async function idleFor(waiting: number): Promise<Idle> {
  const [cpu0, tx0, t0] = [process.cpuUsage(), await transactions(), performance.now()];
  await new Promise((r) => setTimeout(r, 10_000));
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  return {
    waiting,
    cpuPercent: (cpu.user + cpu.system) / 1e4 / seconds,
    // Of the whole database (the process's own timers too): compared with no waiting request, below.
    transactionsPerSecond: ((await transactions()) - tx0 - 1) / seconds,
  };
}

console.log('warm-up: GET /bookings with wrk for 10 s…');
await wrk(); // a cold process answers its first seconds slowly: not what is compared
console.log('GET /bookings, no long poll open…');
const without = await wrk();
console.log('idle, no long poll open, 10 s…');
const idleNone = await idleFor(0);
const agent = new Agent({ connections: 1200 });
const polls = Array.from({ length: 1000 }, () => request(`${root}/events?wait=30&types=review.created`,
  { headers, dispatcher: agent }).then((r) => r.body.text(), () => ''));
// Measured once every request is waiting: while some were still being read in, their reads showed as the waits'.
for (const t0 = Date.now(); feedWaiters(wp.core).size < 1000 && Date.now() - t0 < 60_000;) {
  await new Promise((r) => setTimeout(r, 100));
}
console.log(`${feedWaiters(wp.core).size} long polls waiting`);
// The polls' own reads before they wait (two pages each) are counted by pg_stat_database only when their connection
// flushes its statistics, up to 10 s later when it is idle (PostgreSQL's PGSTAT_IDLE_INTERVAL): a window opened at
// once showed 60-72 transactions/s that were those reads. Wait past that first.
const settledAfter = 11;
await new Promise((r) => setTimeout(r, settledAfter * 1000));
console.log('idle, 1,000 long polls waiting, 10 s…');
const idle = await idleFor(1000);
console.log('GET /bookings beside the 1,000 long polls…');
const withPolls = await wrk();
const result = {
  date: new Date().toISOString(), waiting: 1000, settled_after_seconds: settledAfter, idle_without_polls: idleNone,
  idle,
  getBookings: { without, withPolls },
};
console.log(JSON.stringify(result, null, 2));
writeFileSync('bench/results/feed-long-poll.json', `${JSON.stringify(result, null, 2)}\n`);
await agent.destroy(); // the polls end here rather than after their 30 s
await Promise.allSettled(polls);
await wp.close();
process.exit(0); // nothing left to wait for (a run once stayed up minutes after its result)
