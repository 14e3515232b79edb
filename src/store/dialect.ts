// The few places where SQLite and PostgreSQL differ, in one file.
import { sql, SqliteAdapter, type CompiledQuery } from 'kysely';
import type { UntypedDb } from './tables.js';

/** The databases Waypost runs on (`Store.dialect`, for reports; code that needs a difference calls `store.sql`). */
export type DialectName = 'sqlite' | 'postgres';

export function dialectOf(db: UntypedDb): DialectName {
  return db.getExecutor().adapter instanceof SqliteAdapter ? 'sqlite' : 'postgres';
}

/** Normalises text for the search index: lower case, single spaces. */
export function searchText(parts: Array<string | number | null | undefined>): string {
  return parts
    .filter((p) => p !== null && p !== undefined && p !== '')
    .join(' ')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/** Tables with a search index (SQLite FTS5 trigram / PostgreSQL pg_trgm GIN). */
export const SEARCHABLE = ['trips', 'customers', 'bookings', 'payments'] as const;
export type Searchable = (typeof SEARCHABLE)[number];

/** Keeps the SQLite FTS5 index in step with a row; PostgreSQL indexes the column itself. */
export async function indexSearchText(db: UntypedDb, table: Searchable, id: number, text: string | null)
  : Promise<void> {
  if (dialectOf(db) !== 'sqlite') return;
  const fts = sql.table(`${table}_fts`);
  await sql`DELETE FROM ${fts} WHERE rowid = ${id}`.execute(db);
  if (text !== null) await sql`INSERT INTO ${fts} (rowid, search_text) VALUES (${id}, ${text})`.execute(db);
}

/** Pages one merge step writes: each step is its own short write, so host writes go on between them. */
const MERGE_PAGES = 2000;

/**
 * SQLite's FTS5 index keeps a deleted row's terms (behind a tombstone, even with 'secure-delete' on, which does
 * nothing for a contentless_delete table) until its segments are merged: after an erasure, the index is merged step
 * by step into one segment, which drops them (0.5 s at 100,000 rows). PostgreSQL's index is on the row itself.
 */
export async function mergeSearchIndex(db: UntypedDb, tables: readonly Searchable[]): Promise<void> {
  if (dialectOf(db) !== 'sqlite') return;
  const changes = async () => (await sql<{ n: number }>`SELECT total_changes() AS n`.execute(db)).rows[0].n;
  for (const table of tables) {
    const fts = sql.table(`${table}_fts`);
    // A step that merged nothing changes one row (the command's own); bounded in case other writes interleave.
    for (let step = 0; step < 100_000; step++) {
      const before = await changes();
      // FTS5 reads a command's value from the statement itself: a bound parameter is an SQL logic error.
      await sql`INSERT INTO ${fts} (${fts}, rank) VALUES ('merge', ${sql.lit(-MERGE_PAGES)})`.execute(db);
      if (await changes() - before <= 1) break;
    }
  }
}

/**
 * After an erasure: SQLite's WAL keeps the pages the erasure replaced until a checkpoint, and TRUNCATE empties it
 * (freed space inside the file is zeroed as it is freed: `secure_delete`, store/db.ts). PostgreSQL's old row
 * versions are no part of a dump, and autovacuum reclaims them.
 */
export async function forgetReplacedData(db: UntypedDb): Promise<void> {
  if (dialectOf(db) === 'sqlite') await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
}

/**
 * Whether the search text lives only in the search index: SQLite's FTS5 index is contentless and holds the text
 * itself (the column stays empty instead of storing it twice); PostgreSQL's pg_trgm index is built on the column.
 */
export function searchTextInIndexOnly(db: UntypedDb): boolean {
  return dialectOf(db) === 'sqlite';
}

/** The statements that put a batch's search texts into SQLite's FTS5 index (none on PostgreSQL), `size` rows each. */
export function searchIndexStatements(db: UntypedDb, table: Searchable,
  entries: Array<{ id: number; text: string; replaces: boolean }>, size: number,
  rows: (table: string, list: Array<Record<string, unknown>>) => CompiledQuery): CompiledQuery[] {
  if (dialectOf(db) !== 'sqlite') return [];
  const fts = sql.table(`${table}_fts`);
  const out: CompiledQuery[] = [];
  const replaced = entries.filter((e) => e.replaces).map((e) => e.id);
  for (let i = 0; i < replaced.length; i += size) {
    out.push(sql`DELETE FROM ${fts} WHERE rowid IN (${sql.join(replaced.slice(i, i + size))})`.compile(db));
  }
  for (let i = 0; i < entries.length; i += size) {
    out.push(rows(`${table}_fts`, entries.slice(i, i + size).map((e) => ({ rowid: e.id, search_text: e.text }))));
  }
  return out;
}

/**
 * Waypost's next own customer id, from `min` up. PostgreSQL: a sequence (concurrent writers never get the same one).
 * SQLite: one past the highest in the range, safe because a SQLite write transaction holds the only write lock;
 * `last` is the id this transaction handed out before and has not written yet (the importer's batch).
 */
export async function nextAssignedId(db: UntypedDb, min: number, last: number | null = null): Promise<number> {
  if (dialectOf(db) === 'postgres') {
    const { rows } = await sql<{ id: string }>`SELECT nextval('assigned_customer_ids') AS id`.execute(db);
    return Number(rows[0].id);
  }
  if (last !== null) return last + 1;
  const max = await db.selectFrom('customers').select((eb) => eb.fn.max('id').as('max'))
    .where('id', '>=', min).executeTakeFirst();
  return max?.max == null ? min : Number(max.max) + 1;
}
