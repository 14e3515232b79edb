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
  /** The exact per-row check of a search that a rare piece of it leads (`searchMatch` with that piece). */
  searchCheck(resource: string, needle: string): RawBuilder<unknown>;
}

/** An FTS5 phrase: the text as one string of trigrams, quotes doubled. */
const phrase = (text: string) => `"${text.replace(/"/g, '""')}"`;
/** A LIKE pattern that finds the text anywhere, its wildcards escaped. */
const anywhere = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const sqlite: ListSql = {
  indexHint: (name) => (name ? sql` INDEXED BY ${sql.id(name)}` : sql``),
  searchSource: (resource) => ({
    // CROSS JOIN fixes the order (SQLite's planner keeps it): the search index drives, even when conditions on the
    // records (a modified_after range, the check of a search a rare piece leads) tempt it to walk those first.
    from: sql`${sql.table(`${resource}_fts`)} AS k CROSS JOIN ${sql.table(resource)} AS r ON r.id = k.rowid`,
    keyFrom: sql`${sql.table(`${resource}_fts`)} AS k`,
    keyTable: 'r', keyId: sql.ref('k.rowid'),
  }),
  searchMatch: (resource, needle, driving) => {
    const fts = sql.table(`${resource}_fts`);
    return driving
      ? sql`k.search_text MATCH ${phrase(needle)}`
      : sql`EXISTS (SELECT 1 FROM ${fts} WHERE ${fts} MATCH ${phrase(needle)} AND rowid = r.id)`;
  },
  // From the record itself (store/db.ts): an FTS5 phrase costs 5-15 ms to open when its trigrams are common, even
  // for one row, while the text of a few hundred rows costs about 1 ms. Both are the lower-cased text's substring.
  searchCheck: (resource, needle) => sql`instr(waypost_search_text(${resource}, r.data), ${needle}) > 0`,
};

const postgres: ListSql = {
  indexHint: () => sql``,
  searchSource: () => null,
  searchMatch: (_resource, needle) => sql`r.search_text LIKE ${anywhere(needle)}`,
  // Written so that the trigram index cannot serve it (an expression it is not on): GIN would read every trigram's
  // posting list again, which is what leading with a rare piece avoids.
  searchCheck: (_resource, needle) => sql`(r.search_text || '') LIKE ${anywhere(needle)}`,
};

export const LIST_SQL: Record<DialectName, ListSql> = { sqlite, postgres };
