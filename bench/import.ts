// Bulk import throughput, side by side: the real CLI (`waypost import`, a child process) loads the scale file
// (bench/scale-data.ts: N bookings, N/10 customers, N/2 payments) into a fresh database, once per mode:
// `bulk` (indexes built at the end) and `rows` (--no-bulk-load: every index kept up to date). Reports wall time,
// lines/s, CPU seconds, peak RSS, the rebuild's share, database bytes per booking and the load average.
// Run: npm run build && npx tsx bench/import.ts [bookings=125000] [--postgres] [--modes bulk,rows]
// (125,000 bookings = 200,012 lines; the file is 1,000,000). Results: bench/results/import-DIALECT-LINES.json.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { scaleFile } from './scale-data.js';
import { PG_URL } from '../test/helpers/services.js';

const args = process.argv.slice(2);
const BOOKINGS = Number(args.find((a) => /^\d+$/.test(a)) ?? 125_000);
const DIALECT = args.includes('--postgres') ? 'postgres' : 'sqlite';
const MODES = (args.includes('--modes') ? args[args.indexOf('--modes') + 1] : 'bulk,rows').split(',');
const ROOT = join(import.meta.dirname, '..');
const DATA = join(import.meta.dirname, '.data');
const SCHEMA = 'bench_import';

/** Peak RSS (VmHWM, MB) and CPU seconds (utime + stime of every thread) of a running process. */
function sample(pid: number): { rssMb: number; cpuS: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const rssMb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  return { rssMb, cpuS: (Number(stat[11]) + Number(stat[12])) / 100 };
}

async function fresh(): Promise<string> {
  if (DIALECT === 'sqlite') {
    const path = join(DATA, 'bench-import.db');
    for (const s of ['', '-wal', '-shm']) rmSync(path + s, { force: true });
    return `sqlite:${path}`;
  }
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA}`);
  await client.end();
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${SCHEMA},public`);
  return url.toString();
}

async function dbBytes(url: string): Promise<number> {
  if (DIALECT === 'sqlite') {
    const base = url.slice('sqlite:'.length);
    return ['', '-wal'].reduce((n, s) => n + (existsSync(base + s) ? statSync(base + s).size : 0), 0);
  }
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  const { rows } = await client.query(`SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS n FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`, [SCHEMA]);
  await client.end();
  return Number(rows[0].n);
}

async function run(mode: string, path: string, lines: number) {
  const url = await fresh();
  const env = { ...process.env, DATABASE_URL: url };
  // Migrate first, so the import's time is the import's.
  await new Promise((resolve) => spawn('node', [join(ROOT, 'bin/waypost.js'), 'migrate'], { env, stdio: 'ignore' })
    .on('exit', resolve));
  const load = loadavg()[0];
  const started = performance.now();
  let rebuildAt = 0;
  // The CLI re-runs itself with its V8 flags (bin/waypost.js): run that child directly so /proc is the importer.
  const child = spawn('node', ['--max-semi-space-size=4', join(ROOT, 'dist/cli/main.js'), 'import', path,
    `--${mode === 'bulk' ? '' : 'no-'}bulk-load`], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr.on('data', (d: Buffer) => {
    if (!rebuildAt && String(d).includes('building indexes')) rebuildAt = performance.now();
  });
  let last = { rssMb: 0, cpuS: 0 };
  const poll = setInterval(() => {
    try {
      const s = sample(child.pid!);
      last = { rssMb: Math.max(last.rssMb, s.rssMb), cpuS: Math.max(last.cpuS, s.cpuS) };
    } catch { /* exited */ }
  }, 100);
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  clearInterval(poll);
  if (code !== 0) throw new Error(`import (${mode}) exited with ${code}`);
  const seconds = (performance.now() - started) / 1000;
  const bytes = await dbBytes(url);
  const result = {
    dialect: DIALECT, mode, lines, seconds: Number(seconds.toFixed(1)), lines_per_second: Math.round(lines / seconds),
    rebuild_seconds: rebuildAt ? Number((seconds - (rebuildAt - started) / 1000).toFixed(1)) : 0,
    cpu_seconds_at_last_sample: Number(last.cpuS.toFixed(1)), peak_rss_mb: Math.round(last.rssMb),
    db_bytes: bytes, bytes_per_booking: Math.round(bytes / BOOKINGS),
    load_average: { before: Number(load.toFixed(2)), after: Number(loadavg()[0].toFixed(2)) },
  };
  console.log(JSON.stringify(result));
  return result;
}

const file = await scaleFile(BOOKINGS);
mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
const out = join(ROOT, 'bench', 'results', `import-${DIALECT}-${file.lines}.json`);
// Modes not run this time keep their earlier result (each names its date and load average).
const earlier = existsSync(out)
  ? (JSON.parse(readFileSync(out, 'utf8')) as { results: Array<{ mode: string }> }).results : [];
const results: Array<{ mode: string; date?: string }> = earlier.filter((r) => !MODES.includes(r.mode));
for (const mode of MODES) results.push({ ...await run(mode, file.path, file.lines), date: new Date().toISOString() });
writeFileSync(out, `${JSON.stringify({
  benchmark: 'waypost import of bench/.data/scale-N.ndjson into a fresh database, bulk load vs row by row',
  file: { bookings: BOOKINGS, lines: file.lines, bytes: statSync(file.path).size },
  machine: { cpus: cpus().length, node: process.version }, date: new Date().toISOString(), results,
}, null, 2)}\n`);
