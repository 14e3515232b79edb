// Once per `vitest run`: names the run, so that the PostgreSQL schemas its tests make (test/helpers/db.ts) can be
// dropped when it ends. Left behind, they pile up run after run in the shared `test` database.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PG_URL } from './services.js';

export function setup(): () => Promise<void> {
  const run = randomBytes(3).toString('hex');
  process.env.WAYPOST_TEST_RUN = run; // the test workers start from this environment
  return async () => {
    const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
    } catch {
      return; // no PostgreSQL here: the run made no schemas
    }
    try {
      const { rows } = await client.query<{ name: string }>(
        "SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE $1", [`t\\_${run}\\_%`]);
      for (const { name } of rows) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    } finally {
      await client.end();
    }
  };
}
