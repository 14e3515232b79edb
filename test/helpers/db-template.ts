// Migrated databases for tests, copied instead of migrated each time. Opening a fresh PostgreSQL schema ran all of
// Waypost's migrations again (about a second, every test on PostgreSQL), a fresh SQLite file too (less, for many more
// tests): the suite's largest repeated cost after module loading. Each test process now migrates one template with
// Waypost's own migrator (as a real start does), then every test gets a copy: the SQLite file copied, the PostgreSQL
// schema recreated from the template's pg_dump (DDL, functions, triggers and the migrator's bookkeeping rows). Suites
// that test migrating itself still start from an empty database (freshDatabaseUrl).
import { execFile } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';
import { openStore } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { freshDatabaseUrl, schemaOf, newSchemaName, schemaUrl, type TestDialect } from './db.js';
import { PG_URL } from './services.js';

const MARK = '__waypost_template_schema__';
let sqliteTemplate: Promise<string> | undefined;
let pgTemplate: Promise<string | null> | undefined;

async function migrated(url: string): Promise<void> {
  const store = openStore(url);
  try {
    await migrate(store.db);
  } finally {
    await store.close();
  }
}

async function makeSqliteTemplate(): Promise<string> {
  const url = await freshDatabaseUrl('sqlite');
  await migrated(url); // closed: its WAL is checkpointed into the file, which is then all there is to copy
  return url.slice('sqlite:'.length);
}

/**
 * The template schema's dump with its name replaced by MARK; null where pg_dump cannot be run (then: migrate). Made
 * once per run by global-setup.ts and read from its file (WAYPOST_TEST_PG_TEMPLATE), else once per test process.
 */
async function pgTemplateDump(): Promise<string | null> {
  const file = process.env.WAYPOST_TEST_PG_TEMPLATE;
  return file ? readFileSync(file, 'utf8') : makePgTemplate();
}

/**
 * Migrates a new schema and dumps it. pg_dump reads the whole database's catalog, which grows with every schema the
 * run's tests make (their schemas are dropped when the run ends), so it is run once, when the run starts.
 */
export async function makePgTemplate(): Promise<string | null> {
  const url = await freshDatabaseUrl('postgres');
  await migrated(url);
  const schema = schemaOf(url);
  try {
    const { stdout } = await promisify(execFile)('pg_dump',
      ['--no-owner', '--no-privileges', '--inserts', '--schema', schema, '--dbname', PG_URL],
      { maxBuffer: 64 * 1024 * 1024 });
    // Lines starting with a backslash are psql's meta-commands (recent pg_dump writes `\restrict` / `\unrestrict`
    // around the dump): not SQL, and the dump is run here as one query, not through psql.
    return stdout.replace(/^\\.*$/gm, '').replaceAll(schema, MARK);
  } catch {
    return null;
  }
}

/** A new database holding Waypost's current schema (and nothing else), as if Waypost had just migrated it. */
export async function migratedDatabaseUrl(dialect: TestDialect): Promise<string> {
  if (dialect === 'sqlite') {
    const template = await (sqliteTemplate ??= makeSqliteTemplate());
    const url = await freshDatabaseUrl('sqlite');
    copyFileSync(template, url.slice('sqlite:'.length));
    return url;
  }
  const dump = await (pgTemplate ??= pgTemplateDump());
  if (dump === null) return freshDatabaseUrl('postgres'); // Waypost migrates it when it opens
  const schema = newSchemaName();
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(dump.replaceAll(MARK, schema)); // the dump's CREATE SCHEMA makes it
  } finally {
    await client.end();
  }
  return schemaUrl(schema);
}
