// REST API throughput and latency with autocannon, in one run (npm run bench:api):
//   (a) a bare Fastify route returning the same bytes as (b), the ceiling for this machine
//   (b) GET /bookings?perpage=20, cache hit (authenticated, rate-limited, answered from the response cache)
//   (c) the same request with the cache disabled (WAYPOST_CACHE_TTL_S=0): every request reads the database
//   (d) a `search` that misses the cache (cache disabled): the text index on 100,000 bookings
// Seeds 100,000 bookings into a SQLite file (reused by later runs), serves each case from a child process so the
// load generator does not share the server's event loop, runs the cases in turn for several rounds (BENCH_ROUNDS,
// default 3, of BENCH_DURATION_S = 5 s each), reports each case's median round, and writes bench/results/api.json.
// Run: npm run bench:api [-- bookings]   Targets on 2 cores: (b) >= 50% of (a) req/s; (c) p99 < 20 ms.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { createWaypost } from '../src/sdk.js';
import { childUrl } from './child-url.js';
import { createLogger } from '../src/log.js';
import { apiRoot } from '../src/config.js';
import { createApiKey } from '../src/api/keys.js';
import { putMany } from '../src/host/write.js';
import type { InputRecords, Resource } from '../src/records/schemas.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const LAST_NAMES = [
  'Silva', 'Costa', 'Santos', 'Ferreira', 'Pereira', 'Oliveira', 'Rodrigues', 'Martins', 'Sousa', 'Fernandes',
];
const TRIPS = ['Douro Valley Walk', 'Alentejo Cycling', 'Azores Whale Watching', 'Lisbon Food Tour', 'Madeira Levadas'];

// ---------------------------------------------------------------- child: one server per case
if (process.argv[2] === 'serve') {
  const [, , , kind, databaseUrl, cacheTtlS, bodyFile] = process.argv;
  if (kind === 'bare') {
    const { readFileSync } = await import('node:fs');
    const body = readFileSync(bodyFile, 'utf8');
    const app = Fastify();
    app.get('/bookings', async (_req, reply) => reply.type('application/json; charset=utf-8').send(body));
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    process.stdout.write(`${url}\n`);
  } else {
    const wp = await createWaypost({
      env: {}, logger: createLogger('warn', process.stderr),
      config: {
        databaseUrl, port: 0, cacheTtlS: Number(cacheTtlS), rateLimit: 100_000_000, authFailLimit: 100_000_000,
      },
    });
    const { url } = await wp.serve('api');
    process.stdout.write(`${url}${apiRoot(wp.config)}\n`);
  }
  process.on('SIGTERM', () => process.exit(0));
} else {
  await main();
}

// ---------------------------------------------------------------- parent: seed, serve, measure, report
async function seed(databaseUrl: string, total: number) {
  const wp = await createWaypost({ env: {}, logger: createLogger('warn', process.stderr), config: { databaseUrl } });
  try {
    const have = await wp.core.db.selectFrom('bookings').select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    if (Number(have.n) < total) {
      const started = performance.now();
      const BATCH = 1000;
      for (let from = Number(have.n) + 1; from <= total; from += BATCH) {
        const items: Array<{ resource: Resource; id: number; input: InputRecords[Resource] }> = [];
        for (let id = from; id < Math.min(from + BATCH, total + 1); id++) {
          const last = LAST_NAMES[id % LAST_NAMES.length];
          const customerId = (id % 20_000) + 1;
          const t = TRIPS[id % TRIPS.length];
          const when = new Date(Date.UTC(2024, 0, 1) + id * 60_000).toISOString();
          items.push({
            resource: 'bookings', id,
            input: {
              status: (['booked', 'pending', 'completed', 'reserved', 'canceled'] as const)[id % 5], currency: 'EUR',
              total_amount: `${(id % 900) + 100}.00`, paid_amount: '50.00', booked_at: when,
              customer: {
                id: customerId, email: `customer${customerId}@example.com`, first_name: 'Ana',
                last_name: `${last}${customerId % 97}`,
              },
              trips: [{
                trip_id: (id % TRIPS.length) + 1, title: t, start_date: '2027-05-01', travellers: 2,
                line_items: [{ label: 'Adult', quantity: 2, price: '100.00', total: '200.00' }],
              }],
              engine_version: '6.8.0', cart_version: '4.1', created_at: when, updated_at: when,
            } as InputRecords['bookings'],
          });
        }
        await putMany(wp.core, items, { events: false });
        const done = Math.min(from + BATCH - 1, total);
        const rate = Math.round((done - Number(have.n)) / ((performance.now() - started) / 1000));
        const progress = `${done.toLocaleString('en')} / ${total.toLocaleString('en')} (${rate}/s)`;
        process.stderr.write(`\rseeding bookings: ${progress}   `);
      }
      process.stderr.write('\n');
    }
    const key = await createApiKey(wp.core, { label: 'bench', permissions: ['bookings.list', 'bookings.read'] });
    return { key: key.key, secret: key.secret };
  } finally {
    await wp.close();
  }
}

function startServer(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, 'serve', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return childUrl(child);
}

async function stopServer(child: ChildProcess): Promise<void> {
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

interface CaseResult {
  case: string;
  description: string;
  requests_per_second: number;
  latency_ms: { p50: number; p90: number; p99: number; max: number };
  non_2xx: number;
  errors: number;
}

async function measure(
  name: string, description: string, url: string, headers: Record<string, string>, warmupS = 2,
): Promise<CaseResult> {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: warmupS });
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_S });
  const result: CaseResult = {
    case: name,
    description,
    requests_per_second: Math.round(r.requests.average),
    latency_ms: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
    non_2xx: r.non2xx,
    errors: r.errors,
  };
  process.stderr.write(`${name}: ${result.requests_per_second} req/s, p99 ${result.latency_ms.p99} ms\n`);
  return result;
}

async function main() {
  const total = Number(process.argv[2] ?? 100_000);
  const dir = join(tmpdir(), 'waypost-bench-api');
  mkdirSync(dir, { recursive: true });
  const databaseUrl = `sqlite:${join(dir, `bookings-${total}.db`)}`;
  if (!existsSync(databaseUrl.slice(7))) {
    process.stderr.write(`seeding ${total} bookings into ${databaseUrl} (kept for later runs)\n`);
  }
  const creds = await seed(databaseUrl, total);
  const headers = { 'access-token': creds.key, 'access-secret': creds.secret };
  const query = '/bookings?perpage=20';
  const results: CaseResult[] = [];

  // The API's answer first, to capture the exact bytes the bare route (a) will return.
  const cached = await startServer(['api', databaseUrl, '3600']);
  const sample = await fetch(`${cached.url}${query}`, { headers });
  if (sample.status !== 200) throw new Error(`API answered ${sample.status}: ${await sample.text()}`);
  const body = await sample.text();
  const bodyFile = join(dir, 'body.json');
  writeFileSync(bodyFile, body);
  const bare = await startServer(['bare', databaseUrl, '0', bodyFile]);
  const uncached = await startServer(['api', databaseUrl, '0']);
  const cases: Array<[string, string, string, Record<string, string>]> = [
    ['a_bare_fastify', `bare Fastify route sending the same ${body.length} bytes`, `${bare.url}/bookings`, {}],
    ['b_cache_hit', `GET ${query} answered from the response cache`, `${cached.url}${query}`, headers],
    ['c_cache_miss', `GET ${query} with the cache disabled (WAYPOST_CACHE_TTL_S=0)`, `${uncached.url}${query}`,
      headers],
    ['d_search_miss', 'GET /bookings?perpage=20&search=costa4 (text index, cache disabled)',
      `${uncached.url}/bookings?perpage=20&search=costa4`, headers],
  ];
  // The cases take turns, ROUNDS times. Each case reports its median round, and its ratio to (a) is the median of
  // the ratios within each round (the cases of one round ran seconds apart): a shared machine's slow spell then
  // weighs on every case alike instead of on whichever ran during it.
  const rounds: CaseResult[][] = cases.map(() => []);
  for (let round = 1; round <= ROUNDS; round++) {
    process.stderr.write(`round ${round}/${ROUNDS}\n`);
    for (const [i, [name, description, url, h]] of cases.entries()) {
      rounds[i].push(await measure(name, description, url, h, round === 1 ? 2 : 1));
    }
  }
  await Promise.all([cached, bare, uncached].map((s) => stopServer(s.child)));
  const median = (list: CaseResult[]) =>
    [...list].sort((x, y) => x.requests_per_second - y.requests_per_second)[Math.floor(list.length / 2)];
  const [a, b, c, d] = rounds.map(median);
  results.push(a, b, c, d);

  const medianOf = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const rows = results.map((r, i) => {
    const perRound = rounds[i].map((x, k) => x.requests_per_second / rounds[0][k].requests_per_second);
    return {
      ...r, ratio_to_a: Number(medianOf(perRound).toFixed(2)),
      ratio_to_a_each_round: perRound.map((x) => Number(x.toFixed(2))),
    };
  });
  console.log('\ncase               req/s   ratio   p50 ms   p90 ms   p99 ms');
  for (const r of rows) {
    const ms = [r.latency_ms.p50, r.latency_ms.p90, r.latency_ms.p99].map((n) => String(n).padStart(8)).join(' ');
    const rate = `${String(r.requests_per_second).padStart(7)} ${r.ratio_to_a.toFixed(2).padStart(7)}`;
    console.log(`${r.case.padEnd(17)} ${rate} ${ms}`);
  }
  const targets = { b_at_least_half_of_a: rows[1].ratio_to_a >= 0.5, c_p99_below_20ms: c.latency_ms.p99 < 20 };
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log(`\ntargets: (b) >= 50% of (a): ${met(targets.b_at_least_half_of_a)}; `
    + `(c) p99 < 20 ms: ${met(targets.c_p99_below_20ms)}`);
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/api.json', `${JSON.stringify({
    benchmark: 'REST API v1 with autocannon (each case served by its own child process)',
    bookings: total,
    database: 'sqlite',
    autocannon: {
      connections: CONNECTIONS, duration_s: DURATION_S, rounds: ROUNDS,
      reported: 'median round of each case; ratio: median of the per-round ratios',
    },
    machine: { cpus: cpus().length, node: process.version },
    date: new Date().toISOString(),
    results: rows,
    targets,
  }, null, 2)}\n`);
}
