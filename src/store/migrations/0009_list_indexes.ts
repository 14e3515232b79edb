// Every list the REST API offers costs O(perpage) at a million records: each equality filter has an index per
// sort field, ending in id, so "filter, order by (field, id), LIMIT" walks one index and never sorts the matches.
// booking_trips carries the booking's visibility and times so a trip's bookings list in any order the same way.
// record_counts gains a row per status value ("bookings?status=booked"), so the status filter's total is exact
// without counting. bookings_visible_booked served no list (booked_at is not a sort field) and is dropped.
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

const INDEXES: Array<[string, string, string[]]> = [
  ['trips_status_created', 'trips', ['status', 'created_at', 'id']],
  ['trips_status_updated', 'trips', ['status', 'updated_at', 'id']],
  ['trips_status_title', 'trips', ['status', 'title', 'id']],
  ['customers_email_created', 'customers', ['email', 'created_at', 'id']],
  ['customers_email_updated', 'customers', ['email', 'updated_at', 'id']],
  ['bookings_status_created', 'bookings', ['visible', 'status', 'created_at', 'id']],
  ['bookings_status_updated', 'bookings', ['visible', 'status', 'updated_at', 'id']],
  ['bookings_customer_created', 'bookings', ['visible', 'customer_id', 'created_at', 'id']],
  ['bookings_customer_updated', 'bookings', ['visible', 'customer_id', 'updated_at', 'id']],
  ['bookings_email_created', 'bookings', ['visible', 'customer_email', 'created_at', 'id']],
  ['bookings_email_updated', 'bookings', ['visible', 'customer_email', 'updated_at', 'id']],
  ['booking_trips_trip_id', 'booking_trips', ['trip_id', 'visible', 'booking_id']],
  ['booking_trips_trip_created', 'booking_trips', ['trip_id', 'visible', 'created_at', 'booking_id']],
  ['booking_trips_trip_updated', 'booking_trips', ['trip_id', 'visible', 'updated_at', 'booking_id']],
  ['payments_status_created', 'payments', ['status', 'created_at', 'id']],
  ['payments_status_updated', 'payments', ['status', 'updated_at', 'id']],
  ['payments_booking_created', 'payments', ['booking_id', 'created_at', 'id']],
  ['payments_booking_updated', 'payments', ['booking_id', 'updated_at', 'id']],
];

export async function up(db: Kysely<any>): Promise<void> {
  const pg = dialectOf(db) === 'postgres';
  await db.schema.dropIndex('bookings_visible_booked').ifExists().execute();
  await db.schema.dropIndex('booking_trips_trip').ifExists().execute();
  await db.schema.alterTable('booking_trips').addColumn('visible', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('booking_trips').addColumn('created_at', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('booking_trips').addColumn('updated_at', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await (pg
    ? sql`UPDATE booking_trips bt SET visible = b.visible, created_at = b.created_at, updated_at = b.updated_at
          FROM bookings b WHERE b.id = bt.booking_id`
    : sql`UPDATE booking_trips SET (visible, created_at, updated_at) =
          (SELECT visible, created_at, updated_at FROM bookings b WHERE b.id = booking_trips.booking_id)`).execute(db);
  for (const [name, table, columns] of INDEXES) await db.schema.createIndex(name).on(table).columns(columns).execute();
  await sql`INSERT INTO record_counts (resource, total)
    SELECT 'bookings?status=' || status, count(*) FROM bookings WHERE visible = 1 GROUP BY status
    UNION ALL SELECT 'payments?status=' || status, count(*) FROM payments GROUP BY status
    UNION ALL SELECT 'trips?status=' || status, count(*) FROM trips GROUP BY status`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of INDEXES) await db.schema.dropIndex(name).ifExists().execute();
  await sql`DELETE FROM record_counts WHERE resource LIKE '%?status=%'`.execute(db);
}
