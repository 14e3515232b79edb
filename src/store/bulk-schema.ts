// Where SQLite and PostgreSQL differ for a large import (src/host/import.ts, bulk.ts, bulk-load.ts): the batch size
// each does best with, how a batch commits, which secondary indexes and triggers a bulk load drops (sqlite_master vs
// pg_index), how the search index is rebuilt (FTS5 table vs a GIN index like any other) and what follows an import.
import { sql, type CompiledQuery } from 'kysely';
import type SqliteDatabase from 'better-sqlite3';
import { combineWrites, pgBatchTransaction } from './bulk-pg.js';
import { SEARCHABLE } from './dialect.js';
import type { UntypedDb } from './tables.js';

type Db = UntypedDb;

/** An index, trigger or search index a bulk load dropped, with what rebuilds it. */
export interface Pending {
  name: string;
  kind: 'index' | 'trigger' | 'search';
  /** The CREATE statement; for a search index, the table it indexes. */
  definition: string;
}

export interface BulkSql {
  /** Lines per import batch (SQLite's one writer commits fewer, larger batches faster). */
  defaultImportBatch: number;
  /** The tables' secondary indexes and triggers but `kept`, and the search indexes a bulk load rebuilds. */
  secondaryIndexes(db: Db, tables: string[], kept: string[]): Promise<Pending[]>;
  /** One batch's transaction with its locks taken, when done otherwise than with Kysely's transaction and lockNames. */
  batchTransaction?: <T>(db: Db, lockNames: string[], body: (conn: Db) => Promise<T>) => Promise<T>;
  /** A batch's statements as fewer statements (default: as they are). */
  combineWrites?: (statements: readonly CompiledQuery[]) => CompiledQuery[];
  /** Indexes built at once after a bulk load, each on its own connection (default 1). */
  indexBuilders?: number;
  /** Settings for the transaction that builds one index. */
  beforeIndexBuild(trx: Db): Promise<void>;
  /** As a bulk load begins: sets a search index (SQLite) to take the load's batches with fewer merges. */
  deferSearchMerges(db: Db, p: Pending): Promise<void>;
  /**
   * Finishes a search index after a bulk load. Refilling one reads each record's search text through SQL's
   * `waypost_search_text(table, data)`, which the store registers (db.ts `searchText`).
   */
  finishSearch(trx: Db, p: Pending): Promise<void>;
  /** Sets the main connection's page cache for an import; returns what puts it back. */
  importCache(kib: number): () => void;
  /** After an import that wrote rows. */
  afterImport(db: Db): Promise<void>;
}

/**
 * Lines per transaction. PostgreSQL's batches take an advisory lock per record they touch (src/host/locks.ts), and
 * its shared lock table holds about 6,400 by default: 500 lines take at most 1,500, and the import holds two
 * batches' locks at a time (import-writes.ts).
 */
export const DEFAULT_BATCH_SIZE = { sqlite: 2000, postgres: 500 } as const;

/** FTS5's pending-terms limit while a search index is rebuilt (its default is 1 MB). */
const FTS_HASH_BYTES = 8 * 1024 * 1024;
/** A bulk-load search entry whose rows the batches write (the older kind, definition = table, is refilled). */
const MERGE_PREFIX = 'merge:';
/** FTS5 merges this many segments of a level at once while a bulk load writes (its default is 4, its limit 16). */
const BULK_AUTOMERGE = 16;
const DEFAULT_AUTOMERGE = 4;

export function sqliteBulk(sqlite: SqliteDatabase.Database): BulkSql {
  return {
    defaultImportBatch: DEFAULT_BATCH_SIZE.sqlite,
    secondaryIndexes: async (db, tables, kept) => {
      const { rows } = await sql<{ name: string; kind: 'index' | 'trigger'; definition: string }>`
        SELECT name, type AS kind, sql AS definition FROM sqlite_master
        WHERE type IN ('index', 'trigger') AND sql IS NOT NULL AND tbl_name IN (${sql.join(tables)})
          AND name NOT IN (${sql.join(kept)})`.execute(db);
      return [...rows, ...SEARCHABLE.map((t) => ({
        name: `${t}_fts`, kind: 'search' as const, definition: `${MERGE_PREFIX}${t}`,
      }))];
    },
    // The search index is written by the load's batches, on the writer thread beside the main thread's parsing.
    // Each batch's commit writes one FTS5 segment, and FTS5 merges a level's segments once it has `automerge` of
    // them: at 4, each row is rewritten about five times over a million rows; at 16, two or three times. The
    // segments left are merged into one at the end (finishSearch).
    deferSearchMerges: async (db, p) => {
      const fts = sql.table(p.name);
      await sql`INSERT INTO ${fts} (${fts}, rank) VALUES ('automerge', ${sql.lit(BULK_AUTOMERGE)})`.execute(db);
    },
    // Sorting in memory (temp_store = MEMORY) built a million-row index about a quarter faster, but the import's RSS
    // rose from 298 MB to 368 MB while building: the sorts spill to temporary files as before.
    beforeIndexBuild: async () => {},
    finishSearch: async (trx, p) => {
      const fts = sql.table(p.name);
      if (p.definition.startsWith(MERGE_PREFIX)) {
        await sql`INSERT INTO ${fts} (${fts}, rank) VALUES ('automerge', ${sql.lit(DEFAULT_AUTOMERGE)})`.execute(trx);
      } else {
        // An earlier version's bulk load left the index empty: refill it from the stored records.
        // The search text comes from the stored record, as the write path computes it (SQLite keeps no copy of it).
        await sql`INSERT INTO ${fts} (${fts}) VALUES ('delete-all')`.execute(trx);
        // FTS5 writes a segment each time its pending terms pass 'hashsize' (1 MB): at 8 MB, fewer segments to merge
        // (about a quarter faster). Back to the default before the commit, which is what reads it.
        await sql`INSERT INTO ${fts} (${fts}, rank) VALUES ('hashsize', ${sql.lit(FTS_HASH_BYTES)})`.execute(trx);
        await sql`INSERT INTO ${fts} (rowid, search_text)
          SELECT id, waypost_search_text(${p.definition}, data) FROM ${sql.table(p.definition)}`.execute(trx);
        await sql`INSERT INTO ${fts} (${fts}, rank) VALUES ('hashsize', ${sql.lit(1024 * 1024)})`.execute(trx);
      }
      // One segment instead of the dozens a load leaves: every lookup searched each of them. At a million bookings
      // a search for a piece of common trigrams took 1.2 ms instead of 0.33 ms, and a page of a common surname
      // 0.39 ms instead of 0.07 ms; merging them took 5 s (the load is what it merges: a bulk load is at least as
      // large as what the tables held).
      await sql`INSERT INTO ${fts} (${fts}) VALUES ('optimize')`.execute(trx);
    },
    importCache: (kib) => {
      const before = sqlite.pragma('cache_size', { simple: true });
      sqlite.pragma(`cache_size = -${kib}`);
      return () => {
        if (sqlite.open) sqlite.pragma(`cache_size = ${String(before)}`);
      };
    },
    // SQLite's lists name their index (store/list-sql.ts): no statistics to refresh.
    afterImport: async () => {},
  };
}

export const postgresBulk: BulkSql = {
  defaultImportBatch: DEFAULT_BATCH_SIZE.postgres,
  // A batch's statements each wait for the server in turn: fewer, larger ones (bulk-pg.ts).
  batchTransaction: pgBatchTransaction,
  combineWrites,
  secondaryIndexes: async (db, tables, kept) => {
    const { rows } = await sql<{ name: string; definition: string }>`
      SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
      WHERE t.relnamespace = current_schema()::regnamespace AND t.relname IN (${sql.join(tables)})
        AND NOT i.indisprimary AND NOT i.indisunique AND c.relname NOT IN (${sql.join(kept)})`.execute(db);
    return rows.map((r) => ({ ...r, kind: 'index' as const }));
  },
  // Two at once: a GIN index builds on one core (PostgreSQL 15 has no parallel GIN build), so the other core builds
  // the B-trees meanwhile.
  indexBuilders: 2,
  // PostgreSQL sorts in maintenance_work_mem: its default (64 MB) spills a million rows to disk.
  beforeIndexBuild: async (trx) => {
    await sql`SET LOCAL maintenance_work_mem = '256MB'`.execute(trx);
  },
  deferSearchMerges: async () => {},
  finishSearch: async () => {
    throw new Error('PostgreSQL search indexes are GIN indexes, rebuilt like the others');
  },
  importCache: () => () => {},
  // PostgreSQL plans from table statistics: after a bulk load they are stale until autovacuum comes by, and a
  // planner that thinks a table is empty sorts a million rows.
  afterImport: async (db) => {
    await sql`ANALYZE trips, customers, bookings, booking_trips, payments, enquiries, reviews`.execute(db);
  },
};
