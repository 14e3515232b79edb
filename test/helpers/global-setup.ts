// Once per `vitest run`: names the run, so that the PostgreSQL schemas its tests make (test/helpers/db.ts) can be
// dropped when it ends (left behind, they pile up run after run in the shared `test` database); and starts one
// Chromium that every browser suite connects to with contexts of its own (test/console/browser.ts), instead of a
// Chromium per file.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { chromium, type BrowserServer } from 'playwright-core';
import { CHROMIUM, PG_URL } from './services.js';
import { CHROMIUM_ARGS } from './chromium-args.js';

export async function setup(): Promise<() => Promise<void>> {
  const run = randomBytes(3).toString('hex');
  // The test workers start from this environment.
  process.env.WAYPOST_TEST_RUN = run;
  let browser: BrowserServer | null = null;
  if (existsSync(CHROMIUM)) {
    browser = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    process.env.WAYPOST_TEST_CHROMIUM = browser.wsEndpoint();
  }
  return async () => {
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
