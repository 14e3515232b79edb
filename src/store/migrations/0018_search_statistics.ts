// PostgreSQL only: a finer sample of the search text for the planner. A `search` list is answered either by walking
// the id order and checking each row (a common term: a page fills at once) or by the trigram index (a rare term),
// and the planner picks from its estimate of how many rows hold the term. That estimate comes from the fraction of
// the column's histogram bounds that hold it: with the default 100 bounds a surname held by 5% of a million
// bookings could land in none of them, be estimated at 100 rows, and be answered by reading all 49,887 matches
// and sorting them (240-313 ms instead of 0.1 ms), depending on the luck of the last ANALYZE. 1,000 bounds gave
// estimates within a few percent; ANALYZE of a million bookings then takes about 3 s, planning about 1 ms. The
// column is analysed again here so that an existing database plans with the finer sample at once.
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

const TABLES = ['trips', 'customers', 'bookings', 'payments'];
const TARGET = 1000;

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  for (const table of TABLES) {
    await sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN search_text SET STATISTICS ${sql.lit(TARGET)}`.execute(db);
    await sql`ANALYZE ${sql.table(table)} (search_text)`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  for (const table of TABLES) {
    await sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN search_text SET STATISTICS -1`.execute(db);
  }
}
