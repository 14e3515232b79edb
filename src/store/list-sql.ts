// Where SQLite's and PostgreSQL's list queries differ (src/api/list-plan.ts builds the rest): SQLite is told which
// index to walk (its planner guesses wrong on skewed data) and searches an FTS5 trigram table; PostgreSQL plans from
// statistics and searches the column with pg_trgm's GIN index behind LIKE.
import { sql, type RawBuilder } from 'kysely';
import type { DialectName } from './db.js';

/** FROM clause of a list: the table (or index table `k`) the rows come from, and the id and sort columns' table. */
export interface ListSource {
  from: RawBuilder<unknown>;
  keyFrom: RawBuilder<unknown>;
  keyTable: string;
  keyId: RawBuilder<unknown>;
}

export interface ListSql {
  /** The hint that names the index to walk (empty where the planner picks it). */
  indexHint(name: string | null | undefined): RawBuilder<unknown>;
  /** The source of a list that a search drives, when the search has its own table (null: the record table). */
  searchSource(resource: string): ListSource | null;
  /** The search condition: the driving match (`driving`), or a per-row check when another index drives. */
  searchMatch(resource: string, needle: string, driving: boolean): RawBuilder<unknown>;
}

const sqlite: ListSql = {
  indexHint: (name) => (name ? sql` INDEXED BY ${sql.id(name)}` : sql``),
  searchSource: (resource) => ({
    from: sql`${sql.table(`${resource}_fts`)} AS k JOIN ${sql.table(resource)} AS r ON r.id = k.rowid`,
    keyFrom: sql`${sql.table(`${resource}_fts`)} AS k`,
    keyTable: 'r', keyId: sql.ref('k.rowid'),
  }),
  searchMatch: (resource, needle, driving) => {
    const phrase = `"${needle.replace(/"/g, '""')}"`;
    const fts = sql.table(`${resource}_fts`);
    return driving
      ? sql`k.search_text MATCH ${phrase}`
      : sql`EXISTS (SELECT 1 FROM ${fts} WHERE ${fts} MATCH ${phrase} AND rowid = r.id)`;
  },
};

const postgres: ListSql = {
  indexHint: () => sql``,
  searchSource: () => null,
  searchMatch: (_resource, needle) => sql`r.search_text LIKE ${`%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`,
};

export const LIST_SQL: Record<DialectName, ListSql> = { sqlite, postgres };
