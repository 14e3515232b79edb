// The few places where SQLite and PostgreSQL differ, in one file.
import { sql, SqliteAdapter, type Kysely } from 'kysely';
import type { DialectName } from './db.js';

export function dialectOf(db: Kysely<any>): DialectName {
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
export async function indexSearchText(db: Kysely<any>, table: Searchable, id: number, text: string | null): Promise<void> {
  if (dialectOf(db) !== 'sqlite') return;
  const fts = sql.table(`${table}_fts`);
  await sql`DELETE FROM ${fts} WHERE rowid = ${id}`.execute(db);
  if (text !== null) await sql`INSERT INTO ${fts} (rowid, search_text) VALUES (${id}, ${text})`.execute(db);
}
