// PostgreSQL only: room on each page of deliveries for the claim's update. A claim changes only the lease columns,
// which no index holds, so with room beside the row PostgreSQL writes the new version on the same page without
// touching the table's seven indexes (a HOT update); on a full page every claimed row cost seven index insertions
// (a 200-row claim took 17-27 ms, with room 1.5-5 ms: docs/PERFORMANCE.md). Half of each new page is kept free:
// freshly queued rows are claimed together, so a page's rows all need room at once. The old versions are pruned
// from the page and the room used again. SQLite has no such setting (it rewrites the row in place).
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`ALTER TABLE deliveries SET (fillfactor = 50)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`ALTER TABLE deliveries RESET (fillfactor)`.execute(db);
}
