// Bulk import throughput: a 100,000-line NDJSON file made from the demo catalogue (all six types), imported into a
// fresh SQLite file and a fresh PostgreSQL schema. Results go to bench/results/import.json.
// Run: npx tsx bench/import.ts [lines]   (PostgreSQL at TEST_DATABASE_URL or 127.0.0.1:5432, skipped if absent)
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWaypost } from '../src/sdk.js';
import { createLogger } from '../src/log.js';
import { demoCatalogue, demoRecords } from '../src/demo/catalogue.js';
import { importFile } from '../src/host/import.js';
import { freshDatabaseUrl, type TestDialect } from '../test/helpers/db.js';
import { hasPostgres } from '../test/helpers/services.js';

const LINES = Number(process.argv[2] ?? 100_000);

function writeFile(): string {
  // ~3.2 lines per booking (customers, payments, enquiries and reviews scale with bookings).
  const records = demoRecords(demoCatalogue({ bookings: Math.ceil(LINES / 3) })).slice(0, LINES);
  const path = join(mkdtempSync(join(tmpdir(), 'waypost-bench-import-')), 'catalogue.ndjson');
  writeFileSync(path, records.map((r) => JSON.stringify({ type: r.resource, id: r.id, data: r.data })).join('\n') + '\n');
  return path;
}

async function run(dialect: TestDialect, path: string) {
  const wp = await createWaypost({ env: {}, logger: createLogger('silent'), config: { databaseUrl: await freshDatabaseUrl(dialect) } });
  try {
    const started = performance.now();
    const first = await importFile(wp.core, path);
    const seconds = (performance.now() - started) / 1000;
    const again = performance.now();
    const second = await importFile(wp.core, path, { restart: true });
    const secondsUnchanged = (performance.now() - again) / 1000;
    const result = {
      dialect,
      lines: first.lines,
      seconds: Number(seconds.toFixed(2)),
      lines_per_second: Math.round(first.lines / seconds),
      created: first.created,
      skipped: first.skipped,
      rerun_all_unchanged: { seconds: Number(secondsUnchanged.toFixed(2)), lines_per_second: Math.round(second.lines / secondsUnchanged), unchanged: second.unchanged },
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await wp.close();
  }
}

const path = writeFile();
const dialects: TestDialect[] = (await hasPostgres()) ? ['sqlite', 'postgres'] : ['sqlite'];
const results = [];
for (const dialect of dialects) results.push(await run(dialect, path));
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/import.json', `${JSON.stringify({
  benchmark: 'bulk import (waypost import), batches of 500 lines per transaction, no events',
  file: { lines: LINES, bytes: statSync(path).size },
  machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
  date: new Date().toISOString(),
  results,
}, null, 2)}\n`);
