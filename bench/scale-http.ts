// For bench/scale.ts: REST API throughput with 1 and 2 `waypost serve --role api` processes (REDIS_URL set: the
// cache and rate limits in Redis), driven by Debian's wrk. With 2 processes each gets its own wrk with half the
// connections (Node 20 cannot share a port between processes); requests/s are summed. Two shapes: a cached list
// (cache on, every request after the first a hit) and the same list with the cache off (every request reads
// PostgreSQL). CPU seconds per party: the API processes, their PostgreSQL backends, the other postgres processes,
// redis-server and wrk (bash's `times`: wrk is its child). With BENCH_BEFORE_REF the base commit's API processes
// take a turn after this tree's in every round, on a copy of the database without the migrations it does not know.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Kysely, PostgresDialect, type Migration } from 'kysely';
import pg from 'pg';
import { CpuMeter, backendPids, pidsNamed, startWaypost, withApplicationName } from './scale-procs.js';

const run = promisify(execFile);
export const API_PATH = '/rest/waypost/api/v1/bookings?perpage=20';

export interface ApiSetup {
  databaseUrl: string;
  redisUrl: string;
  meter: pg.Client;
  key: { key: string; secret: string };
  connections: number;
  durationS: number;
  port: number;
}

/** wrk against one URL; returns requests, non-2xx answers and wrk's own CPU seconds. */
async function wrk(url: string, s: ApiSetup, threads: number, connections: number) {
  const args = ['-t', String(threads), '-c', String(connections), '-d', `${s.durationS}s`,
    '-H', `Access-Token: ${s.key.key}`, '-H', `Access-Secret: ${s.key.secret}`, url];
  const quoted = args.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const { stdout } = await run('bash', ['-c', `wrk ${quoted}; times`]);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
  // `times`: the shell's user and system time, then its children's (wrk's).
  const children = stdout.trim().split('\n').at(-1)!.split(' ').map((t) => {
    const m = /(\d+)m([\d.]+)s/.exec(t);
    return m ? Number(m[1]) * 60 + Number(m[2]) : 0;
  });
  return { requests, non2xx, cpu: children[0] + children[1] };
}

/** A tree whose sources run through tsx, on its own database (BENCH_BEFORE_REF). */
export interface Source { tree: string; databaseUrl: string }

export async function apiThroughput(
  s: ApiSetup, processes: number, shape: 'cached' | 'uncached', from?: Source,
) {
  const app = `wpscale-api${processes}-${Date.now()}`;
  const procs = await Promise.all(Array.from({ length: processes }, (_, i) => startWaypost('api', {
    DATABASE_URL: withApplicationName(from?.databaseUrl ?? s.databaseUrl, app), REDIS_URL: s.redisUrl,
    PORT: String(s.port + i), WAYPOST_CACHE_TTL_S: shape === 'cached' ? '3600' : '0',
    WAYPOST_RATE_LIMIT: '100000000', WAYPOST_AUTH_FAIL_LIMIT: '100000000', LOG_LEVEL: 'info',
  }, from && { tree: from.tree })));
  try {
    const urls = procs.map((_, i) => `http://127.0.0.1:${s.port + i}${API_PATH}`);
    // Warm-up: the JIT, the pool's connections, and (cached) the first answer in Redis.
    for (const url of urls) {
      for (let i = 0; i < 200; i++) {
        const res = await fetch(url, { headers: { 'access-token': s.key.key, 'access-secret': s.key.secret } });
        if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      }
    }
    const meter = new CpuMeter(async () => {
      const backends = await backendPids(s.meter, app);
      return {
        api: procs.map((p) => p.pid), api_backends: backends,
        postgres_other: pidsNamed('postgres').filter((pid) => !backends.includes(pid)),
        redis: pidsNamed('redis-server'),
      };
    });
    await meter.start();
    const threads = processes === 1 ? 2 : 1;
    const runs = await Promise.all(urls.map((url) => wrk(url, s, threads, s.connections / processes)));
    const cpu = await meter.stop();
    cpu.wrk = Number(runs.reduce((n, r) => n + r.cpu, 0).toFixed(2));
    const requests = runs.reduce((n, r) => n + r.requests, 0);
    const non2xx = runs.reduce((n, r) => n + r.non2xx, 0);
    if (non2xx > 0) throw new Error(`${non2xx} answers were not 2xx`);
    const perRequest = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, Math.round((v / requests) * 1e6)]));
    return {
      processes, shape, requests, requests_per_second: Math.round(requests / s.durationS),
      cpu_seconds: cpu, cpu_us_per_request: perRequest,
    };
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
  }
}

type Run = Awaited<ReturnType<typeof apiThroughput>>;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round3 = (n: number) => Number(n.toFixed(3));

/**
 * Every API configuration in each round (1 and 2 processes; the base commit's after this tree's): each one's
 * median round, and the medians of the per-round ratios to 1 process and to the base commit.
 */
export async function apiRounds(s: ApiSetup, rounds: number, trees: { after?: Source; before?: Source },
  log: (line: string) => void): Promise<Record<string, unknown>> {
  const { before } = trees;
  const report: Record<string, unknown> = {};
  for (const shape of ['cached', 'uncached'] as const) {
    const runs: Array<Record<string, Run>> = [];
    for (let r = 1; r <= rounds; r++) {
      const turn: Record<string, Run> = {};
      for (const n of [1, 2]) {
        const turns: Array<[string, Source | undefined]> = [[`${n}`, trees.after]];
        if (before) turns.push([`before_${n}`, before]);
        for (const [name, from] of turns) {
          turn[name] = await apiThroughput(s, n, shape, from);
          log(`round ${r}/${rounds}: API ${shape}, ${name} process(es) ${JSON.stringify(turn[name])}`);
        }
      }
      runs.push(turn);
    }
    for (const name of Object.keys(runs[0])) {
      const n = name.replace('before_', '');
      const rate = (t: Record<string, Run>, k: string) => t[k].requests_per_second;
      const sorted = [...runs].sort((a, b) => rate(a, name) - rate(b, name));
      report[`${shape}_${name}_process${n === '1' ? '' : 'es'}`] = { ...sorted[Math.floor(runs.length / 2)][name],
        vs_1_process: round3(median(runs.map((t) => rate(t, name) / rate(t, name.replace(/\d$/, '1'))))),
        ...(before && !name.startsWith('before') && {
          vs_before: round3(median(runs.map((t) => rate(t, name) / rate(t, `before_${name}`)))),
        }),
        rounds: runs.map((t) => rate(t, name)) };
    }
  }
  return report;
}

/**
 * A copy of the database (`CREATE DATABASE … TEMPLATE`, so nothing may be connected to it) for a base commit:
 * the migrations its tree does not have are taken back (their `down`, newest first).
 */
export async function copyForBefore(server: pg.Client, from: string, url: string, tree: string): Promise<string> {
  const to = `${from}_before`;
  await server.query(`CREATE DATABASE ${to} TEMPLATE ${from}`);
  const u = new URL(url);
  u.pathname = `/${to}`;
  const known = new Set(readdirSync(join(tree, 'src', 'store', 'migrations')).map((f) => f.replace(/\.ts$/, '')));
  const pool = new pg.Pool({ connectionString: u.toString() });
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  try {
    const applied = await db.selectFrom('kysely_migration').select('name').orderBy('name', 'desc').execute();
    for (const { name } of applied.filter((m) => !known.has(m.name))) {
      const migration = (await import(`../src/store/migrations/${name}.js`)) as Migration;
      await migration.down?.(db);
      await db.deleteFrom('kysely_migration').where('name', '=', name).execute();
    }
  } finally {
    await db.destroy();
  }
  return u.toString();
}
