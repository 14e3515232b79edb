// SQLite only: a counter per cached kind of data, bumped by triggers on every commit that changes it, whichever
// connection or process commits. The API holds answers and keys in memory and must drop them when another
// connection changes the data behind them (`waypost import`, `waypost keys disable`, a second server); it used to
// drop everything on any foreign commit (PRAGMA data_version), so the delivery worker's own writes (its own
// connection, src/store/sqlite-writer.ts) or a worker process emptied the API cache many times a second. With the
// counters it drops only what changed (src/api/foreign-writes.ts). PostgreSQL keeps nothing in memory that
// another process could make stale, so it has no counters.
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

/** Table → the counter its changes bump; api_keys only for the columns an API request relies on. */
const WATCHED: Array<{ table: string; counter: string; columns?: string[] }> = [
  { table: 'trips', counter: 'trips' },
  { table: 'customers', counter: 'customers' },
  { table: 'bookings', counter: 'bookings' },
  { table: 'booking_trips', counter: 'bookings' },
  { table: 'payments', counter: 'payments' },
  { table: 'api_keys', counter: 'api_keys', columns: ['key', 'secret_hash', 'permissions', 'active', 'rate_limit'] },
];

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'sqlite') return;
  await db.schema.createTable('change_counters')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('generation', 'integer', (c) => c.notNull())
    .execute();
  const counters = [...new Set(WATCHED.map((w) => w.counter))];
  await db.insertInto('change_counters').values(counters.map((name) => ({ name, generation: 0 }))).execute();
  for (const { table, counter, columns } of WATCHED) {
    for (const op of ['insert', 'update', 'delete'] as const) {
      const on = op === 'update' && columns
        ? sql.raw(`update of ${columns.map((c) => `"${c}"`).join(', ')}`)
        : sql.raw(op);
      await sql`create trigger ${sql.id(`${table}_${op}_counter`)} after ${on} on ${sql.table(table)}
        begin update change_counters set generation = generation + 1 where name = ${sql.lit(counter)}; end`.execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'sqlite') return;
  for (const { table } of WATCHED) {
    for (const op of ['insert', 'update', 'delete']) {
      await sql`drop trigger if exists ${sql.id(`${table}_${op}_counter`)}`.execute(db);
    }
  }
  await db.schema.dropTable('change_counters').ifExists().execute();
}
