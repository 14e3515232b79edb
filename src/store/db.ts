// Opens the database named by DATABASE_URL: SQLite (better-sqlite3, WAL) or PostgreSQL (pg). Everything else in
// Waypost goes through the typed Kysely instance; dialect differences live in src/store/ (`Store.sql`, dialect.ts).
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, type Driver } from 'kysely';
import type { Database } from './tables.js';
import { SqliteWriter } from './sqlite-writer.js';
import { postgresBulk, sqliteBulk, type BulkSql } from './bulk-schema.js';
import { sqliteChanges, type ChangeSource } from './data-version.js';
import { LIST_SQL, type ListSql } from './list-sql.js';
import type { DialectName } from './dialect.js';
import {
  pgImportWrites, sqliteImportWrites, type ImportWrites, type ImportWritesOptions,
} from './import-writes.js';

/** What differs between the databases, behind one interface: list-sql.ts, bulk-schema.ts, data-version.ts. */
export interface DialectSql extends ListSql, BulkSql {
  /** What tells of other connections' commits (null: nothing does). */
  changeSource(countersSql: string): ChangeSource | null;
  /**
   * How an import writes batch N while it decides batch N + 1 (import-writes.ts: SQLite's writer thread, PostgreSQL's
   * lock session and pool); null where there is no second connection (SQLite in memory: each batch in turn).
   */
  importWrites(options: ImportWritesOptions): Promise<ImportWrites | null>;
}

export interface Store {
  db: Kysely<Database>;
  /** The database's name, for reports (/readyz, logs); code that needs a difference calls `sql` instead. */
  dialect: DialectName;
  /** What differs between the databases: capability code calls this and never tests `dialect`. */
  sql: DialectSql;
  /** For PostgreSQL: the connection string (LISTEN/NOTIFY opens its own client). */
  url: string;
  close(): Promise<void>;
  /** SQLite only: the connection itself (transactions run on it, PRAGMA data_version is read from it). */
  sqlite?: SqliteDatabase.Database;
  /** SQLite only: the statement for an SQL text, prepared once (the same cache Kysely's queries use). */
  statement?: (sql: string) => SqliteDatabase.Statement;
  /**
   * SQLite on a file: a second connection on its own thread, for the delivery worker's writes (started on first
   * use).
   */
  writer?: SqliteWriter;
  /** PostgreSQL only: the pools, for hot statements run as named prepared statements (the delivery queue's). */
  pg?: PgPools;
}

export interface PgPools {
  /** The pool Kysely runs on. */
  main: pg.Pool;
  /**
   * Two connections whose sessions have `enable_sort` and `enable_seqscan` off, opened on first use: for the delivery
   * engine's named statements (the claim, a batch of successes), whose only good plans are index scans. A named
   * statement's generic plan is made once, from the statistics of that moment; made while deliveries was nearly
   * empty (a new service, a quiet spell), it read the whole table on every claim and every success batch, which
   * grows with the delivery log (docs/PERFORMANCE.md, issue 31). Two: a claim and a success batch run at once.
   */
  engine(): pg.Pool;
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

/**
 * Kysely's SQLite driver prepares every query again, a large share of a small query's cost. It is handed this
 * stand-in for the connection, which prepares each SQL text once and hands back the same statement (a statement
 * still iterating, from a streamed query, is not shared). Very long texts (big multi-row inserts) are not kept.
 */
function preparingOnce(
  sqlite: SqliteDatabase.Database,
): { close(): void; prepare(sql: string): SqliteDatabase.Statement } {
  const MAX_STATEMENTS = 1000;
  const MAX_SQL_LENGTH = 10_000;
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sqlText: string) {
      const known = statements.get(sqlText);
      if (known && !known.busy) return known;
      const statement = sqlite.prepare(sqlText);
      if (sqlText.length <= MAX_SQL_LENGTH) {
        if (statements.size >= MAX_STATEMENTS) statements.delete(statements.keys().next().value as string);
        statements.set(sqlText, statement);
      }
      return statement;
    },
  };
}

export interface StoreOptions {
  poolSize?: number;
  /**
   * A stored record's search text (records/rows.ts), as SQL's `waypost_search_text(table, data)` on SQLite, which
   * keeps no copy of it: a search led by a rare piece checks the whole needle with it (store/list-sql.ts), and a
   * search index emptied by an earlier version's bulk load is refilled with it (bulk-schema.ts).
   */
  searchText?: (table: string, data: string) => string;
}

export function openStore(url: string, options: StoreOptions = {}): Store {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
    const sqlite = new SqliteDatabase(path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    // What a write replaces or deletes is zeroed in the file, not left in free space: an erased person's data
    // (src/privacy/) must not be readable from the file afterwards. Free within a page written anyway (WAL).
    sqlite.pragma('secure_delete = ON');
    const { searchText } = options;
    if (searchText) {
      sqlite.function('waypost_search_text', { deterministic: true },
        (table: unknown, data: unknown) => searchText(String(table), String(data)));
    }
    const connection = preparingOnce(sqlite);
    const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: connection }) });
    const writer = path === ':memory:' ? undefined : new SqliteWriter(path, { main: sqlite });
    const close = async () => {
      await writer?.close();
      await db.destroy();
    };
    const statement = (sqlText: string) => connection.prepare(sqlText);
    const dialectSql = {
      ...LIST_SQL.sqlite, ...sqliteBulk(sqlite), changeSource: sqliteChanges(sqlite),
      importWrites: writer ? sqliteImportWrites(writer) : async () => null,
    };
    return { db, dialect: 'sqlite', sql: dialectSql, url, close, sqlite, statement, writer };
  }
  // keepAlive and a connect timeout: a server that vanished without closing its sockets (a network cut, a failover
  // to another host) fails requests quickly (503) instead of leaving them hanging until the OS gives up.
  const pool = pgPool(url, options.poolSize ?? 10);
  let enginePool: pg.Pool | null = null;
  const engineUrl = () => ENGINE_SESSION.reduce(withSessionOption, url);
  const engine = (): pg.Pool => (enginePool ??= pgPool(engineUrl(), 2));
  const pools: PgPools = { main: pool, engine };
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const dialectSql = {
    ...LIST_SQL.postgres, ...postgresBulk, changeSource: () => null, importWrites: pgImportWrites(db, pool),
  };
  const close = async () => {
    await enginePool?.end();
    await db.destroy();
  };
  return { db, dialect: 'postgres', sql: dialectSql, url, close, pg: pools };
}

function pgPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, keepAlive: true, connectionTimeoutMillis: 10_000 });
  pool.on('error', () => {}); // an idle client's error is reported by the next query that uses the pool
  // pg-pool listens for errors only while a client is idle. A client checked out when its connection drops (a
  // failover, pg_terminate_backend) emits 'error' with no listener, which kills the process. The query in flight
  // is rejected anyway (answered 503, see isConnectionError) and the dead client is not queryable, so the pool drops
  // it on release; this listener only keeps the event from being fatal. 'connect' fires once per new client.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return pool;
}

/** The URL with a setting for its sessions (`options=-c name=value`, after any the URL has, e.g. search_path). */
/** The engine pool's session: the planner may use neither a sort nor a sequential scan (PgPools.engine). */
const ENGINE_SESSION = ['enable_sort=off', 'enable_seqscan=off'];

function withSessionOption(url: string, setting: string): string {
  const u = new URL(url);
  const options = u.searchParams.get('options');
  u.searchParams.set('options', `${options ? `${options} ` : ''}-c ${setting}`);
  return u.toString();
}
