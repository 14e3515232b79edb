// Where SQLite's and PostgreSQL's list queries differ (src/api/list-plan.ts builds the rest): SQLite is told which
// index to walk (its planner guesses wrong on skewed data) and searches an FTS5 trigram table; PostgreSQL plans from
// statistics and searches the column with pg_trgm's GIN index behind LIKE.
import { sql, type RawBuilder } from 'kysely';
import type { DialectName } from './dialect.js';

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
  /** The hint that makes a list walk the table by its ids (`idIn`), whatever else the conditions could use. */
  idHint: RawBuilder<unknown>;
  /** The source of a list that a search drives, when the search has its own table (null: the record table). */
  searchSource(resource: string): ListSource | null;
  /** The search condition: the driving match (`driving`), or a per-row check when another index drives. */
  searchMatch(resource: string, needle: string, driving: boolean): RawBuilder<unknown>;
  /**
   * Whether the search index yields its matches in id order and stops after a page (SQLite's FTS5), or hands all of
   * them over at once (PostgreSQL's GIN), so a search many records hold walks the id order instead.
   */
  orderedSearch: boolean;
  /** The exact per-row check of a search that does not drive an index lookup (search-anchor.ts). */
  searchCheck(resource: string, needle: string): RawBuilder<unknown>;
  /** `r.id` is one of `ids`, as one value (the SQL text stays the same whatever their number), walked in id order. */
  idIn(ids: number[]): RawBuilder<unknown>;
  /**
   * The planner's estimate of how many records hold a search (EXPLAIN: planned, not run), where a probe of the
   * search index costs what its matches cost (GIN); null where the probe stops at its bound (FTS5).
   */
  searchEstimate(resource: string, needle: string): RawBuilder<{ 'QUERY PLAN': unknown }> | null;
  /** An aggregate of the values as one JSON array (text on SQLite, parsed by the driver on PostgreSQL). */
  jsonArray(values: RawBuilder<unknown>): RawBuilder<unknown>;
}

/** An FTS5 phrase: the text as one string of trigrams, quotes doubled. */
const phrase = (text: string) => `"${text.replace(/"/g, '""')}"`;
/** A LIKE pattern that finds the text anywhere, its wildcards escaped. */
const anywhere = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const sqlite: ListSql = {
  indexHint: (name) => (name ? sql` INDEXED BY ${sql.id(name)}` : sql``),
  // Left to itself on small tables, SQLite walked a whole index checking each id against a Bloom filter of the list.
  idHint: sql` NOT INDEXED`,
  orderedSearch: true,
  searchSource: (resource) => ({
    // CROSS JOIN fixes the order (SQLite's planner keeps it): the search index drives, even when conditions on the
    // records (a modified_after range) tempt it to walk those first.
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
  // SQLite keeps an IN list in a sorted table of its own and walks it in the ORDER BY's direction: no sort.
  idIn: (ids) => sql`r.id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`,
  jsonArray: (values) => sql`json_group_array(${values})`,
  searchEstimate: () => null,
};

/** PostgreSQL's search condition, which its trigram index serves. */
const like = (needle: string) => sql`r.search_text LIKE ${anywhere(needle)}`;

const postgres: ListSql = {
  indexHint: () => sql``,
  idHint: sql``,
  orderedSearch: false,
  searchSource: () => null,
  searchMatch: (_resource, needle) => like(needle),
  // A function the trigram index cannot serve (GIN would read every match's postings), whose selectivity the planner
  // guesses at a third: so a page walks the id order and stops, instead of sorting what it guessed to be few rows.
  // (`(search_text || '') LIKE` was guessed at 10 rows of 100,000: a whole-table scan and sort, 30 ms.)
  searchCheck: (_resource, needle) => sql`strpos(r.search_text, ${needle}) > 0`,
  // A B-tree scan with = ANY returns its matches in index order (the primary key's, for r.id).
  idIn: (ids) => sql`r.id = ANY(${ids})`,
  jsonArray: (values) => sql`json_agg(${values})`,
  searchEstimate: (resource, needle) => sql<{ 'QUERY PLAN': unknown }>`EXPLAIN (FORMAT JSON)
    SELECT 1 FROM ${sql.table(resource)} AS r WHERE ${like(needle)}`,
};

export const LIST_SQL: Record<DialectName, ListSql> = { sqlite, postgres };
