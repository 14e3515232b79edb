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
  const schema = newSchemaName();
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await client.end();
  }
  return schemaUrl(schema);
}

/** Named by the run (test/helpers/global-setup.ts drops its schemas at the end); `x` outside vitest (benchmarks). */
export const newSchemaName = () => `t_${process.env.WAYPOST_TEST_RUN ?? 'x'}_${randomBytes(6).toString('hex')}`;

/** The test database's URL with `schema` first on the search path. */
export function schemaUrl(schema: string): string {
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema},public`);
  return url.toString();
}

/** The schema a `schemaUrl` points at. */
export function schemaOf(url: string): string {
  const schema = /search_path=([^,]+)/.exec(new URL(url).searchParams.get('options') ?? '')?.[1];
  if (!schema) throw new Error(`no schema in ${url}`);
  return schema;
}

/** The dialects to run on here: SQLite always, PostgreSQL when reachable (always under CI). */
export const DIALECTS: TestDialect[] = (await hasPostgres()) ? ['sqlite', 'postgres'] : ['sqlite'];

/**
 * A new, empty PostgreSQL database (not only a schema): for suites whose processes are counted or cut off by
 * database. `drop()` ends any connection still open and removes it.
 */
export async function freshPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `waypost_${randomBytes(6).toString('hex')}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
