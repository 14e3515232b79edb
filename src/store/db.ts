// Opens the database named by DATABASE_URL: SQLite (better-sqlite3, WAL) or PostgreSQL (pg). Everything else in
// Waypost goes through the typed Kysely instance; dialect differences live in src/store/dialect.ts.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, type Driver } from 'kysely';
import type { Database } from './tables.js';

export type DialectName = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: DialectName;
  /** For PostgreSQL: the connection string (LISTEN/NOTIFY opens its own client). */
  url: string;
  close(): Promise<void>;
  /** SQLite only: the connection itself, for hot-path reads that reuse a prepared statement (API key lookup). */
  sqlite?: SqliteDatabase.Database;
}

// COUNT(*) and BIGINT ids come back as strings by default; our ids fit in a JS number.
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * SQLite transactions take the write lock up front (BEGIN IMMEDIATE): a transaction that reads before it writes
 * then waits for another process's writer (busy_timeout) instead of failing with SQLITE_BUSY when it upgrades.
 * (The worker and CLI commands may write to the same file as the server.)
 */
class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  }
}

export function openStore(url: string, options: { poolSize?: number } = {}): Store {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
    const sqlite = new SqliteDatabase(path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: sqlite }) });
    return { db, dialect: 'sqlite', url, close: () => db.destroy(), sqlite };
  }
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10 });
  pool.on('error', () => {}); // an idle client's error is reported by the next query that uses the pool
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', url, close: () => db.destroy() };
}
