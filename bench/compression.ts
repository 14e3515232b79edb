// Compression before and after, in one run (npm run bench:compression):
//   - bytes a browser (Chromium, Accept-Encoding: gzip, deflate, br, zstd) transfers for the console's first load
//     and for the API reference page;
//   - axe-core violations on the reference page at 390 and 1280 px (listed, one operation opened);
//   - wrk on the API cache-hit path (GET /bookings?perpage=20) with and without `Accept-Encoding: gzip, br`, with
//     the server's CPU time per request (from /proc, steadier than req/s on a shared machine);
//   - what each brotli quality and gzip level costs on that answer (the choice of brotli 4).
// "Before" is the code at BENCH_BASE_REF (default: where this branch left main), exported with `git archive` into
// a temporary folder that borrows this checkout's node_modules (plus the @fastify/swagger-ui it used) and its
// console build (without the compressed copies). Each server runs in its own child process; the wrk cases take
// turns for BENCH_ROUNDS rounds (default 3) of BENCH_DURATION_S (default 5) and report their median round.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createWaypost } from '../src/sdk.js';
import { childUrl } from './child-url.js';
import { needWrk } from './need-wrk.js';
import { createLogger } from '../src/log.js';
import { createApiKey } from '../src/api/keys.js';
import { putMany } from '../src/host/write.js';
import type { InputRecords, Resource } from '../src/records/schemas.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BOOKINGS = 2_000;
const HERE = resolve(new URL('..', import.meta.url).pathname);
const WORK = join(tmpdir(), 'waypost-bench-compression');
const QUERY = '/bookings?perpage=20';
const sh = (cmd: string, args: string[], cwd = HERE) => execFileSync(cmd, args, { cwd, encoding: 'utf8' }).trim();

/** The base commit's tree, runnable: this checkout's node_modules, its own @fastify/swagger-ui, the console. */
function beforeTree(ref: string): string {
  const dir = join(WORK, `tree-${ref.slice(0, 12)}`);
  if (existsSync(join(dir, '.ready'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${ref} | tar -x -C ${dir}`], { cwd: HERE });
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@fastify'), { recursive: true });
  for (const name of readdirSync(join(HERE, 'node_modules'))) {
    if (name !== '@fastify') symlinkSync(join(HERE, 'node_modules', name), join(modules, name));
  }
  for (const name of readdirSync(join(HERE, 'node_modules', '@fastify'))) {
    symlinkSync(join(HERE, 'node_modules', '@fastify', name), join(modules, '@fastify', name));
  }
  type Lock = { packages: Record<string, { version: string }> };
  const lock = JSON.parse(sh('git', ['show', `${ref}:package-lock.json`])) as Lock;
  const swaggerUi = lock.packages['node_modules/@fastify/swagger-ui']?.version;
  if (swaggerUi && !existsSync(join(modules, '@fastify', 'swagger-ui'))) {
    const tgz = sh('npm', ['pack', `@fastify/swagger-ui@${swaggerUi}`, '--silent', '--pack-destination', WORK]);
    mkdirSync(join(modules, '@fastify', 'swagger-ui'));
    sh('tar', ['-xzf', join(WORK, tgz), '-C', join(modules, '@fastify', 'swagger-ui'), '--strip-components=1']);
  }
  const uncompressed = (s: string) => !/\.(br|gz)$/.test(s);
  cpSync(join(HERE, 'web', 'dist'), join(dir, 'web', 'dist'), { recursive: true, filter: uncompressed });
  writeFileSync(join(dir, '.ready'), ref);
  return dir;
}

async function seed(databaseUrl: string) {
  const wp = await createWaypost({ env: {}, logger: createLogger('warn', process.stderr), config: { databaseUrl } });
  try {
    const have = await wp.core.db.selectFrom('bookings').select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const items: Array<{ resource: Resource; id: number; input: InputRecords[Resource] }> = [];
    for (let id = Number(have.n) + 1; id <= BOOKINGS; id++) {
      const when = new Date(Date.UTC(2024, 0, 1) + id * 60_000).toISOString();
      items.push({ resource: 'bookings', id, input: {
        status: 'booked', currency: 'EUR', total_amount: `${(id % 900) + 100}.00`, paid_amount: '50.00',
        booked_at: when,
        customer: { id: (id % 500) + 1, email: `customer${id % 500}@example.com`, first_name: 'Ana',
          last_name: `Silva${id % 97}` },
        trips: [{ trip_id: (id % 5) + 1, title: 'Douro Valley Walk', start_date: '2027-05-01', travellers: 2,
          line_items: [{ label: 'Adult', quantity: 2, price: '100.00', total: '200.00' }] }],
        engine_version: '6.8.0', cart_version: '4.1', created_at: when, updated_at: when,
      } as InputRecords['bookings'] });
    }
    if (items.length > 0) await putMany(wp.core, items, { events: false });
    const key = await createApiKey(wp.core, { label: 'bench', permissions: ['bookings.list', 'bookings.read'] });
    return { 'access-token': key.key, 'access-secret': key.secret };
  } finally {
    await wp.close();
  }
}

// The child: one Waypost from a given tree (this one or the base commit's), on the shared database.
const CHILD = `const [tree, databaseUrl] = process.argv.slice(2);
const { createWaypost } = await import(tree + '/src/sdk.ts');
const { createLogger } = await import(tree + '/src/log.ts');
const wp = await createWaypost({ env: {}, logger: createLogger('warn', process.stderr), config: { databaseUrl, port: 0,
  cacheTtlS: 3600, rateLimit: 100000000, authFailLimit: 100000000 } });
const { url } = await wp.serve('api');
process.stdout.write(url + '\\n');
process.on('SIGTERM', () => process.exit(0));
`;

function startServer(tree: string, databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const file = join(WORK, 'child.mts');
  writeFileSync(file, CHILD);
  const child = spawn(process.execPath, ['--import', 'tsx', file, tree, databaseUrl],
    { cwd: tree, stdio: ['ignore', 'pipe', 'inherit'] });
  return childUrl(child);
}

/** Bytes on the wire (headers and encoded bodies) for everything a page loads, in Chromium. */
async function pageWeight(browser: Browser, url: string, ready: string) {
  const page = await browser.newPage();
  const responses: Array<Promise<{ url: string; bytes: number; encoding: string }>> = [];
  page.on('requestfinished', (req) => responses.push((async () => {
    const sizes = await req.sizes();
    const res = await req.response();
    return { url: req.url(), bytes: sizes.responseBodySize + sizes.responseHeadersSize,
      encoding: (await res?.headerValue('content-encoding')) ?? 'none' };
  })()));
  await page.goto(url, { waitUntil: 'networkidle' });
  await page.waitForSelector(ready, { timeout: 30_000 });
  const all = await Promise.all(responses);
  await page.close();
  return { bytes: all.reduce((n, r) => n + r.bytes, 0), requests: all.length,
    files: all.map((r) => ({ path: new URL(r.url).pathname, bytes: r.bytes, encoding: r.encoding })) };
}

const AXE = readFileSync(join(HERE, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
async function axeCounts(page: Page) {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => (await (window as unknown as {
    axe: { run(o: object): Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }> } })
    .axe.run({ rules: { 'target-size': { enabled: true } } })).violations);
  const nodes: Record<string, number> = {};
  for (const v of violations) nodes[v.impact] = (nodes[v.impact] ?? 0) + v.nodes.length;
  return { violations: violations.length, nodes_by_impact: nodes, rules: violations.map((v) => v.id) };
}

async function referenceAxe(browser: Browser, url: string) {
  const out: Record<string, unknown> = {};
  for (const width of [390, 1280]) {
    const page = await browser.newPage({ viewport: { width, height: 800 } });
    await page.goto(url, { waitUntil: 'networkidle' });
    await page.waitForSelector('.opblock-summary-control', { timeout: 30_000 });
    const listed = await axeCounts(page);
    await page.click('.opblock-summary-control >> nth=0');
    await page.waitForSelector('.opblock-body');
    out[`${width}px`] = { listed, opened: await axeCounts(page) };
    await page.close();
  }
  return out;
}

/** The server's CPU time so far in µs (/proc: user + system, in clock ticks of 10 ms). */
function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

function wrk(url: string, headers: Record<string, string>, pid: number) {
  const h = Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
  const args = ['-t1', '-c10', `-d${DURATION_S}s`, '--latency', ...h, url];
  const cpuBefore = cpuUs(pid);
  const out = sh('wrk', args);
  // CPU per request does not depend on how much of the shared machine the server got, unlike req/s.
  const cpu = cpuUs(pid) - cpuBefore;
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
  const ms = (label: string) => {
    const m = new RegExp(`${label}\\s+([\\d.]+)(us|ms|s)`).exec(out);
    return m ? Number(m[1]) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[m[2]] : NaN;
  };
  const transfer = /Transfer\/sec:\s+([\d.]+)(B|KB|MB|GB)/.exec(out);
  const units: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };
  const perSec = transfer ? Number(transfer[1]) * units[transfer[2]] : NaN;
  const rps = num(/Requests\/sec:\s+([\d.]+)/);
  const requests = num(/(\d+) requests in/);
  return { requests_per_second: Math.round(rps), bytes_per_response: Math.round(perSec / rps),
    server_cpu_us_per_request: Number((cpu / requests).toFixed(1)),
    latency_ms: { p50: ms('50%'), p99: ms('99%') }, non_2xx: num(/Non-2xx or 3xx responses:\s+(\d+)/) || 0 };
}

/** µs per compression of `body` at each level (median of many), and the size it gives. */
function levels(body: string) {
  const data = Buffer.from(body);
  const time = (f: () => Buffer) => {
    const runs: number[] = [];
    let size = 0;
    for (let i = 0; i < 200; i++) {
      const t = process.hrtime.bigint();
      size = f().length;
      runs.push(Number(process.hrtime.bigint() - t) / 1000);
    }
    return { bytes: size, us: Math.round(runs.sort((a, b) => a - b)[100]) };
  };
  const br = (q: number) => () => brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: q,
    [constants.BROTLI_PARAM_SIZE_HINT]: data.length, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } });
  return {
    identity_bytes: data.length,
    ...Object.fromEntries([1, 4, 5, 6, 9, 11].map((q) => [`br_${q}`, time(br(q))])),
    ...Object.fromEntries([1, 6, 9].map((l) => [`gzip_${l}`, time(() => gzipSync(data, { level: l }))])),
  };
}

async function main() {
  needWrk();
  mkdirSync(WORK, { recursive: true });
  const ref = process.env.BENCH_BASE_REF ?? sh('git', ['merge-base', 'HEAD', 'main']);
  const base = beforeTree(sh('git', ['rev-parse', ref]));
  const databaseUrl = `sqlite:${join(WORK, `bookings-${BOOKINGS}.db`)}`;
  const auth = await seed(databaseUrl);
  const servers = { before: await startServer(base, databaseUrl), after: await startServer(HERE, databaseUrl) };
  const root = '/rest/waypost/api/v1';
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update'] });
  const pages: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(servers)) {
    pages[name] = {
      console_first_load: await pageWeight(browser, `${s.url}/admin/`, 'form, h1'),
      reference_page: await pageWeight(browser, `${s.url}${root}/docs`, '.opblock-summary'),
      reference_axe: await referenceAxe(browser, `${s.url}${root}/docs`),
    };
    process.stderr.write(`${name}: pages measured\n`);
  }
  await browser.close();

  const sample = await fetch(`${servers.after.url}${root}${QUERY}`, { headers: auth });
  const body = await sample.text();
  const cases = Object.entries(servers).flatMap(([name, s]) => [
    [`${name}_identity`, `${s.url}${root}${QUERY}`, auth, s.child.pid!],
    [`${name}_gzip_br`, `${s.url}${root}${QUERY}`, { ...auth, 'accept-encoding': 'gzip, br' }, s.child.pid!],
  ] as Array<[string, string, Record<string, string>, number]>);
  for (const [, url, h, pid] of cases) wrk(url, h, pid); // warm: every case's answer is in its cache
  const rounds: Record<string, Array<ReturnType<typeof wrk>>> = Object.fromEntries(cases.map(([n]) => [n, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    // Each round starts one case later, so no case always follows the same other one.
    const order = cases.map((_, i) => cases[(i + round - 1) % cases.length]);
    for (const [name, url, h, pid] of order) {
      const r = wrk(url, h, pid);
      rounds[name].push(r);
      process.stderr.write(`round ${round} ${name}: ${r.requests_per_second} req/s, `
        + `${r.bytes_per_response} B/answer\n`);
    }
  }
  for (const s of Object.values(servers)) s.child.kill('SIGTERM');
  const mid = <T>(xs: T[], by: (x: T) => number) => [...xs].sort((a, b) => by(a) - by(b))[Math.floor(xs.length / 2)];
  const hits = Object.fromEntries(Object.entries(rounds).map(([n, xs]) => [n, {
    ...mid(xs, (x) => x.requests_per_second), each_round: xs.map((x) => x.requests_per_second),
    median_server_cpu_us_per_request: mid(xs.map((x) => x.server_cpu_us_per_request), (x) => x),
    server_cpu_us_per_request_each_round: xs.map((x) => x.server_cpu_us_per_request) }]));
  // The median of the per-round ratios: the cases of one round ran seconds apart, so a slow spell of the shared
  // machine weighs on both sides alike.
  const ratio = (a: string, b: string) => Number(mid(rounds[a].map((x, i) => x.requests_per_second
    / rounds[b][i].requests_per_second), (x) => x).toFixed(2));
  const result = {
    benchmark: 'Compression: page weight and axe on the reference page in Chromium, wrk on the API cache hit',
    base_ref: sh('git', ['rev-parse', ref]), head: sh('git', ['rev-parse', 'HEAD']),
    machine: { cpus: cpus().length, node: process.version }, date: new Date().toISOString(),
    pages,
    api_cache_hit: {
      query: `GET ${QUERY}`, wrk: { threads: 1, connections: 10, duration_s: DURATION_S, rounds: ROUNDS },
      results: hits,
      after_identity_to_before_identity: ratio('after_identity', 'before_identity'),
      after_gzip_br_to_after_identity: ratio('after_gzip_br', 'after_identity'),
    },
    compression_levels_on_this_answer: levels(body),
  };
  mkdirSync(join(HERE, 'bench', 'results'), { recursive: true });
  writeFileSync(join(HERE, 'bench', 'results', 'compression.json'), `${JSON.stringify(result, null, 2)}\n`);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
  for (const [name, p] of Object.entries(pages) as Array<[string, Record<string, { bytes: number }>]>) {
    console.log(`${name}: console first load ${kb(p.console_first_load.bytes)}, `
      + `reference page ${kb(p.reference_page.bytes)}`);
  }
  for (const [n, r] of Object.entries(hits)) {
    console.log(`${n.padEnd(18)} ${String(r.requests_per_second).padStart(7)} req/s  `
      + `${String(r.bytes_per_response).padStart(6)} B/answer  p99 ${r.latency_ms.p99} ms  `
      + `server CPU ${r.median_server_cpu_us_per_request} µs/request`);
  }
  const hit = result.api_cache_hit;
  console.log(`after/before identity (median per-round ratio): ${hit.after_identity_to_before_identity}; `
    + `after gzip,br / after identity: ${hit.after_gzip_br_to_after_identity}`);
}

await main();
