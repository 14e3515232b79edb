// Once per `vitest run`: names the run, so that the PostgreSQL schemas its tests make (test/helpers/db.ts) can be
// dropped when it ends (left behind, they pile up run after run in the shared `test` database); keeps PostgreSQL's
// catalogs vacuumed while it runs (below); and starts one Chromium that every browser suite connects to with contexts
// of its own (test/console/browser.ts), instead of a Chromium per file.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { chromium, type BrowserServer } from 'playwright-core';
import { CHROMIUM, PG_URL } from './services.js';
import { CHROMIUM_ARGS } from './chromium-args.js';
import { makePgTemplate } from './db-template.js';

export async function setup(): Promise<() => Promise<void>> {
  const run = randomBytes(3).toString('hex');
  // The test workers start from this environment.
  process.env.WAYPOST_TEST_RUN = run;
  const vacuum = await vacuumCatalogs();
  // The migrated PostgreSQL schema every test copies (db-template.ts), dumped once while the catalog is small.
  const dump = await makePgTemplate().catch(() => null);
  if (dump !== null) {
    const file = join(mkdtempSync(join(tmpdir(), 'waypost-template-')), 'pg.sql');
    writeFileSync(file, dump);
    process.env.WAYPOST_TEST_PG_TEMPLATE = file;
  }
  let browser: BrowserServer | null = null;
  if (existsSync(CHROMIUM)) {
    browser = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    process.env.WAYPOST_TEST_CHROMIUM = browser.wsEndpoint();
  }
  return async () => {
    await vacuum.stop();
    await browser?.close();
    await dropSchemas(run);
  };
}

async function dropSchemas(run: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
  } catch {
    return; // no PostgreSQL here: the run made no schemas
  }
  try {
    const { rows } = await client.query<{ name: string }>(
      'SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE $1', [`t\\_${run}\\_%`]);
    for (const { name } of rows) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** The system catalogs a schema's tables, indexes, constraints and functions are rows of. */
const CATALOGS = ['pg_attribute', 'pg_class', 'pg_depend', 'pg_type', 'pg_index', 'pg_constraint', 'pg_attrdef',
  'pg_statistic', 'pg_trigger', 'pg_proc'].map((t) => `pg_catalog.${t}`).join(', ');
const VACUUM_EVERY_MS = 30_000;

/**
 * Every test on PostgreSQL makes a schema of Waypost's tables, and the run drops them all at its end. This machine's
 * server runs with autovacuum off (conf.d/90-ci.conf), so their rows stayed dead in the catalogs (1.5 million in
 * pg_attribute after a few runs, 314 MB), and every
 * catalog query got slower through the run and from run to run: the test template's pg_dump took 6.3 s instead of
 * 0.2 s, and a first PostgreSQL test in a file passed its 30 s timeout in CI. So the run starts by compacting the
 * catalogs (VACUUM FULL: 1.7 s over 1.5 million dead rows, nothing else running yet) and vacuums them every 30 s while
 * it runs (a plain VACUUM, which DDL runs beside). Without PostgreSQL, nothing.
 */
async function vacuumCatalogs(): Promise<{ stop(): Promise<void> }> {
  // A connection each time: the failover suite terminates every backend, this one's too.
  const vacuum = async (full: boolean) => {
    const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query(`VACUUM ${full ? 'FULL ' : ''}${CATALOGS}`);
      return true;
    } catch {
      return false; // no PostgreSQL here, or it was cut: the next round tries again
    } finally {
      await client.end().catch(() => {});
    }
  };
  if (!(await vacuum(true))) return { stop: async () => {} };
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => { running = running.then(() => vacuum(false)); }, VACUUM_EVERY_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
