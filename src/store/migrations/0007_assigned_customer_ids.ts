// Ids Waypost gives a booking's new embedded customer come from a range the host's ids never reach
// (ASSIGNED_ID_MIN, src/records/schemas.ts). PostgreSQL draws them from a sequence so that concurrent writers never
// get the same one; SQLite takes one past the highest in the range under its single write lock.
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

/** ASSIGNED_ID_MIN (src/records/schemas.ts) as of this migration; migrations are frozen, so it is copied. */
const ASSIGNED_ID_MIN = 1_000_000_000_000_000;

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  // Start above any id an earlier version already gave in the range (none: it used max(id) + 1 below it).
  const { rows } = await sql<{ max: string | null }>`
    SELECT max(id) AS max FROM customers WHERE id >= ${ASSIGNED_ID_MIN}`.execute(db);
  const start = rows[0]?.max == null ? ASSIGNED_ID_MIN : Number(rows[0].max) + 1;
  await sql.raw(`CREATE SEQUENCE assigned_customer_ids AS bigint START WITH ${start} MINVALUE ${ASSIGNED_ID_MIN}`)
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') await sql`DROP SEQUENCE IF EXISTS assigned_customer_ids`.execute(db);
}
