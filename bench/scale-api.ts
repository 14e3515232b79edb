// The REST API and import at a million bookings (npm run bench:scale-api [-- sizes] [--quick]):
//   1. imports bench/.data/scale-N.ndjson (N bookings, N/10 customers, N/2 payments; written once by scale-data.ts)
//      with the real CLI (`waypost import`, a child process) into SQLite and PostgreSQL, reusing an earlier import of
//      the same file; reports lines/s, the import's peak RSS and bytes per booking;
//   2. serves each database with `waypost serve` (cache off: every request reads the database) and drives every
//      list shape with Debian's wrk (4 connections, 1 thread per core; 1 s of warm-up, then 4 s measured), reporting
//      p50/p99 per shape and size and the ratio 1M / 10k (target <= 2), and the server's peak RSS.
// Results: bench/results/scale-api.json and scale-api.md. Needs a build (npm run build) for bin/waypost.js.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { scaleFile } from './scale-data.js';
import { PG_URL, hasPostgres } from '../test/helpers/services.js';
import { childPids } from '../test/helpers/processes.js';
import { needWrk } from './need-wrk.js';

const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const SIZES = (args.find((a) => /^\d/.test(a)) ?? (QUICK ? '10000,100000' : '10000,1000000')).split(',').map(Number);
const DURATION_S = QUICK ? 2 : 4;
/**
 * Each shape is driven this long before it is measured: without it the first shape of a cold server and a shape whose
 * index pages no earlier shape read measured their warm-up (the rare search at a million: 9.1 ms p50 in the first
 * 8 s window, 6.1-7.0 ms in the next two).
 */
const WARMUP_S = 1;
const ROOT = join(import.meta.dirname, '..');
const DATA = join(import.meta.dirname, '.data');
const BIN = join(ROOT, 'bin', 'waypost.js');
type Dialect = 'sqlite' | 'postgres';

const log = (line: string) => process.stderr.write(`${line}\n`);

function urlFor(dialect: Dialect, size: number): string {
  if (dialect === 'sqlite') return `sqlite:${join(DATA, `scale-${size}.db`)}`;
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=scale_${size},public`);
  return url.toString();
}

/**
 * Peak resident memory (VmHWM, MB) of a child or of the process it started: `waypost import` runs again as a child
 * of itself with its V8 flags (bin/waypost.js), and that child is the importer.
 */
function peakRss(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  let peak = m ? Math.round(Number(m[1]) / 1024) : 0;
  for (const child of childPids(pid)) {
    try { peak = Math.max(peak, peakRss(child)); } catch { /* exited */ }
  }
  return peak;
}

function run(cmd: string, argv: string[], env: Record<string, string>, onLine?: (l: string) => void)
  : Promise<{ code: number; out: string; rssMb: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let rssMb = 0;
    const sample = setInterval(() => {
      try { rssMb = Math.max(rssMb, peakRss(child.pid!)); } catch { /* exited */ }
    }, 200);
    child.stdout.on('data', (d: Buffer) => { out += d; });
    child.stderr.on('data', (d: Buffer) => { for (const l of String(d).split(/\r|\n/)) if (l.trim()) onLine?.(l); });
    child.on('error', reject);
    child.on('exit', (code) => { clearInterval(sample); resolve({ code: code ?? 1, out, rssMb }); });
  });
}

async function dbBytes(dialect: Dialect, size: number): Promise<number> {
  if (dialect === 'sqlite') {
    const base = join(DATA, `scale-${size}.db`);
    return ['', '-wal'].reduce((n, s) => n + (existsSync(base + s) ? statSync(base + s).size : 0), 0);
  }
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS n FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`, [`scale_${size}`]);
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

/** Imports the file unless an earlier run finished it (the importer's own progress marker says so). */
async function ensureImported(dialect: Dialect, size: number, path: string, lines: number) {
  const marker = join(DATA, `scale-${size}.${dialect}.imported.json`);
  if (existsSync(marker)) return { ...JSON.parse(readFileSync(marker, 'utf8')), reused: true };
  if (dialect === 'sqlite') {
    for (const s of ['', '-wal', '-shm']) rmSync(join(DATA, `scale-${size}.db${s}`), { force: true });
  } else {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS scale_${size} CASCADE; CREATE SCHEMA scale_${size}`);
    await client.end();
  }
  const started = performance.now();
  let last = 0;
  const r = await run('node', [BIN, 'import', path], { DATABASE_URL: urlFor(dialect, size) }, (l) => {
    if (performance.now() - last > 5000) { last = performance.now(); log(`  ${dialect} ${size}: ${l.trim()}`); }
  });
  if (r.code !== 0) throw new Error(`import failed (${r.code})`);
  const seconds = (performance.now() - started) / 1000;
  const bytes = await dbBytes(dialect, size);
  const result = {
    lines, seconds: Number(seconds.toFixed(1)), lines_per_second: Math.round(lines / seconds), peak_rss_mb: r.rssMb,
    db_bytes: bytes, bytes_per_booking: Math.round(bytes / size),
  };
  writeFileSync(marker, JSON.stringify(result));
  return { ...result, reused: false };
}

interface Served { url: string; child: ChildProcess; key: string; secret: string }

async function serve(dialect: Dialect, size: number): Promise<Served> {
  const port = 18000 + (size % 997) + (dialect === 'sqlite' ? 0 : 1000);
  const env = { DATABASE_URL: urlFor(dialect, size), WAYPOST_CACHE_TTL_S: '0', PORT: String(port) };
  const created = execFileSync('node', [BIN, 'keys', 'create', '--label', 'bench', '--permissions',
    'bookings.list,bookings.read,customers.list,customers.read,payments.list,payments.read,trips.list,trips.read',
    '--rate-limit', '1000000', '--json'], { env: { ...process.env, ...env } });
  const { key, secret } = JSON.parse(String(created)) as { key: string; secret: string };
  const child = spawn('node', [BIN, 'serve', '--role', 'api'], { env: { ...process.env, ...env }, stdio: 'ignore' });
  const url = `http://127.0.0.1:${env.PORT}/rest/waypost/api/v1`;
  for (let i = 0; i < 300; i++) {
    try {
      const res = await fetch(`${url}/test`, { headers: { 'access-token': key, 'access-secret': secret } });
      if (res.ok) return { url, child, key, secret };
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error('server did not start');
}

/** The shapes, with values that exist at every size (ids and names from the generator's rules). */
async function shapes(s: Served, size: number): Promise<Array<[string, string]>> {
  const customers = Math.floor(size / 10);
  const mid = new Date(Date.UTC(2019, 0, 1) + 3 * 365 * 86_400_000).toISOString();
  const late = new Date(Date.UTC(2019, 0, 1) + 6 * 365 * 86_400_000 - 30 * 86_400_000).toISOString();
  const list: Array<[string, string]> = [
    ['plain', '/bookings'],
    ['plain, orderby=created_at asc', '/bookings?orderby=created_at&order=asc'],
    ['status', '/bookings?status=completed'],
    ['status, orderby=updated_at', '/bookings?status=pending&orderby=updated_at'],
    ['trip_id', '/bookings?trip_id=3'],
    ['trip_id + status, orderby=created_at asc', '/bookings?trip_id=3&status=booked&orderby=created_at&order=asc'],
    ['customer_id', `/bookings?customer_id=${Math.ceil(customers / 2)}`],
    ['email', `/bookings?email=maria.santos.${customers - 2}@example.com`],
    ['search, common surname', '/bookings?search=silva'],
    ['search, rare', `/bookings?search=${Math.ceil(customers / 3)}@example`],
    ['search + status', '/bookings?search=silva&status=canceled'],
    ['modified_after (sync)', `/bookings?modified_after=${mid}&orderby=updated_at&order=asc`],
    ['modified_after, recent', `/bookings?modified_after=${late}&orderby=updated_at&order=asc`],
    ['page=1000 (offset 9,990)', '/bookings?page=1000'],
    ['payments, status', '/payments?status=pending'],
    ['payments, booking_id', `/payments?booking_id=${size / 2}`],
    ['customers, search', '/customers?search=kowalski'],
    ['customers, email', `/customers?email=joao.santos.${customers - 1}@example.com`],
  ];
  // `after` cursors from the Link header, 100 pages of 10 in (keyset: as fast as the first page).
  for (const [name, path] of [['after (plain)', '/bookings'],
    ['after (modified_after sync)', `/bookings?modified_after=${mid}&orderby=updated_at&order=asc`]]) {
    let next = `${s.url}${path}`;
    for (let i = 0; i < 100 && next; i++) {
      const res = await fetch(next, { headers: { 'access-token': s.key, 'access-secret': s.secret } });
      next = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1] ?? '';
    }
    if (next) list.push([name, next.slice(s.url.length)]);
  }
  return list;
}

function wrk(url: string, s: Served, seconds = DURATION_S): { p50: number; p99: number; rps: number; non2xx: number } {
  const out = String(execFileSync('wrk', ['-t', String(Math.min(cpus().length, 2)), '-c', '4', '-d', `${seconds}s`,
    '--latency', '-H', `Access-Token: ${s.key}`, '-H', `Access-Secret: ${s.secret}`, url]));
  const ms = (label: string) => {
    const m = new RegExp(`${label}\\s+([\\d.]+)(us|ms|s)`).exec(out);
    if (!m) return NaN;
    return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
  };
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  return { p50: ms('50%'), p99: ms('99%'), rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0), non2xx };
}

async function main() {
  needWrk();
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  const dialects: Dialect[] = (await hasPostgres()) ? ['sqlite', 'postgres'] : ['sqlite'];
  const imports: Record<string, unknown> = {};
  const latency: Record<string, Record<string, { p50: number; p99: number; rps: number }>> = {};
  const servers: Record<string, number> = {};
  for (const size of SIZES) {
    const file = await scaleFile(size, (l, t) => process.stderr.write(`\rwriting ${l}/${t} lines`));
    for (const dialect of dialects) {
      log(`${dialect} ${size}: importing ${file.lines} lines (or reusing)`);
      const imported = await ensureImported(dialect, size, file.path, file.lines);
      imports[`${dialect} ${size}`] = imported;
      log(`  ${JSON.stringify(imported)}`);
      const s = await serve(dialect, size);
      try {
        for (const [name, path] of await shapes(s, size)) {
          wrk(`${s.url}${path}`, s, WARMUP_S); // not counted: the shape's first pages read and its code compiled
          const r = wrk(`${s.url}${path}`, s);
          if (r.non2xx) throw new Error(`${name}: ${r.non2xx} answers were not 2xx (${path})`);
          (latency[name] ??= {})[`${dialect} ${size}`] = { p50: r.p50, p99: r.p99, rps: Math.round(r.rps) };
          const ms = `p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms`;
          log(`  ${name.padEnd(42)} ${ms}  ${Math.round(r.rps)} req/s`);
        }
      } finally {
        servers[`${dialect} ${size}`] = peakRss(s.child.pid!);
        s.child.kill('SIGTERM');
      }
    }
  }
  const [small, big] = [SIZES[0], SIZES[SIZES.length - 1]];
  const ratios: Record<string, Record<string, number>> = {};
  for (const [name, byRun] of Object.entries(latency)) {
    for (const d of dialects) {
      const a = byRun[`${d} ${small}`];
      const b = byRun[`${d} ${big}`];
      if (a && b) (ratios[name] ??= {})[d] = Number((b.p50 / a.p50).toFixed(2));
    }
  }
  const result = {
    benchmark: `REST API lists at ${SIZES.join(' and ')} bookings, cache off, `
      + `wrk 4 connections ${DURATION_S} s per shape after ${WARMUP_S} s of warm-up`,
    machine: { cpus: cpus().length, node: process.version }, date: new Date().toISOString(),
    imports, server_peak_rss_mb: servers, latency_ms: latency, p50_ratio_big_to_small: ratios,
  };
  writeFileSync(join(ROOT, 'bench', 'results', 'scale-api.json'), `${JSON.stringify(result, null, 2)}\n`);
  const rows = Object.entries(latency).map(([name, byRun]) => `| ${name} | ${dialects.map((d) => {
    const a = byRun[`${d} ${small}`];
    const b = byRun[`${d} ${big}`];
    const pair = (x: typeof a) => `${x?.p50.toFixed(2)} / ${x?.p99.toFixed(2)}`;
    return `${pair(a)} | ${pair(b)} | ${ratios[name]?.[d] ?? ''}`;
  }).join(' | ')} |`);
  const head = dialects.map((d) => `${d} ${small} p50/p99 | ${d} ${big} p50/p99 | ratio`).join(' | ');
  writeFileSync(join(ROOT, 'bench', 'results', 'scale-api.md'), [
    `# ${result.benchmark}`, '', `${result.date}, ${result.machine.cpus} cores, Node ${result.machine.node}`, '',
    `| shape | ${head} |`, `|---|${dialects.map(() => '---|---|---').join('|')}|`, ...rows, '',
    '## Imports', '', '```json', JSON.stringify(imports, null, 2), '```', '',
    `Server peak RSS (MB): ${JSON.stringify(servers)}`, '',
  ].join('\n'));
  log(`wrote bench/results/scale-api.json and scale-api.md`);
}

await main();
