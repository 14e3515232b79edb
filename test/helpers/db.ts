// Fresh databases for tests: a temporary SQLite file, or a new PostgreSQL schema. `eachDialect` runs the same
// suite on both (PostgreSQL skipped with a message locally when it is not running; required under CI).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { hasPostgres, PG_URL } from './services.js';

export type TestDialect = 'sqlite' | 'postgres';

export async function freshDatabaseUrl(dialect: TestDialect): Promise<string> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'waypost-test-'));
    return `sqlite:${join(dir, 'waypost.db')}`;
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await client.end();
  }
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema},public`);
  return url.toString();
}

/** The dialects to run on here: SQLite always, PostgreSQL when reachable (always under CI). */
export const DIALECTS: TestDialect[] = (await hasPostgres()) ? ['sqlite', 'postgres'] : ['sqlite'];
