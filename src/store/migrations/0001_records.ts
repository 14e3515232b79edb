// Read model (trips, customers, bookings, payments, enquiries, reviews), API keys, settings, import progress.
import { sql, type Kysely } from 'kysely';
import { dialectOf, SEARCHABLE } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const pg = dialectOf(db) === 'postgres';
  const bigint = pg ? 'bigint' : 'integer';

  await db.schema.createTable('trips')
    .addColumn('id', bigint, (c) => c.primaryKey())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('search_text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema.createTable('customers')
    .addColumn('id', bigint, (c) => c.primaryKey())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('search_text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema.createTable('bookings')
    .addColumn('id', bigint, (c) => c.primaryKey())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('customer_id', bigint)
    .addColumn('customer_email', 'text')
    .addColumn('visible', 'integer', (c) => c.notNull())
    .addColumn('booked_at', 'text')
    .addColumn('search_text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema.createTable('booking_trips')
    .addColumn('booking_id', bigint, (c) => c.notNull())
    .addColumn('trip_id', bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('booking_trips_pk', ['booking_id', 'trip_id'])
    .execute();

  await db.schema.createTable('payments')
    .addColumn('id', bigint, (c) => c.primaryKey())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('booking_id', bigint, (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('search_text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema.createTable('enquiries')
    .addColumn('id', bigint, (c) => c.primaryKey())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema.createTable('reviews')
    .addColumn('id', bigint, (c) => c.primaryKey())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('trip_id', bigint, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema.createTable('record_counts')
    .addColumn('resource', 'text', (c) => c.primaryKey())
    .addColumn('total', 'integer', (c) => c.notNull())
    .execute();

  await db.schema.createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull().unique())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('permissions', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('rate_limit', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();

  await db.schema.createTable('settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema.createTable('import_progress')
    .addColumn('file_key', 'text', (c) => c.primaryKey())
    .addColumn('line', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  // List indexes: every list is "filter, then order by (column, id), then LIMIT perpage", so each index ends in id
  // and a page costs O(perpage) whatever the table size. Bookings always filter on visible first.
  const indexes: Array<[string, string, string[]]> = [
    ['trips_updated', 'trips', ['updated_at', 'id']],
    ['trips_created', 'trips', ['created_at', 'id']],
    ['trips_status', 'trips', ['status', 'id']],
    ['trips_title', 'trips', ['title', 'id']],
    ['customers_updated', 'customers', ['updated_at', 'id']],
    ['customers_created', 'customers', ['created_at', 'id']],
    ['customers_email', 'customers', ['email', 'id']],
    ['bookings_visible_id', 'bookings', ['visible', 'id']],
    ['bookings_visible_updated', 'bookings', ['visible', 'updated_at', 'id']],
    ['bookings_visible_created', 'bookings', ['visible', 'created_at', 'id']],
    ['bookings_visible_booked', 'bookings', ['visible', 'booked_at', 'id']],
    ['bookings_visible_status', 'bookings', ['visible', 'status', 'id']],
    ['bookings_customer', 'bookings', ['visible', 'customer_id', 'id']],
    ['bookings_customer_email', 'bookings', ['visible', 'customer_email', 'id']],
    ['booking_trips_trip', 'booking_trips', ['trip_id', 'booking_id']],
    ['payments_updated', 'payments', ['updated_at', 'id']],
    ['payments_created', 'payments', ['created_at', 'id']],
    ['payments_booking', 'payments', ['booking_id', 'id']],
    ['payments_status', 'payments', ['status', 'id']],
    ['reviews_trip', 'reviews', ['trip_id', 'id']],
  ];
  for (const [name, table, columns] of indexes) {
    await db.schema.createIndex(name).on(table).columns(columns).execute();
  }

  // Search indexes: case-insensitive substring search (>= 3 characters) on both dialects.
  const trgmSchema = pg
    ? (await sql<{ schema: string }>`SELECT extnamespace::regnamespace::text AS schema FROM pg_extension
        WHERE extname = 'pg_trgm'`.execute(db)).rows[0]?.schema ?? 'public'
    : '';
  for (const table of SEARCHABLE) {
    if (pg) {
      const [name, ops] = [sql.id(`${table}_search`), sql.id(trgmSchema, 'gin_trgm_ops')];
      await sql`CREATE INDEX ${name} ON ${sql.table(table)} USING gin (search_text ${ops})`.execute(db);
    } else {
      const fts5 = sql.raw("fts5(search_text, content='', contentless_delete=1, tokenize='trigram')");
      await sql`CREATE VIRTUAL TABLE ${sql.table(`${table}_fts`)} USING ${fts5}`.execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const pg = dialectOf(db) === 'postgres';
  if (!pg) for (const table of SEARCHABLE) await sql`DROP TABLE IF EXISTS ${sql.table(`${table}_fts`)}`.execute(db);
  const tables = [
    'import_progress', 'settings', 'api_keys', 'record_counts', 'reviews', 'enquiries', 'payments', 'booking_trips',
    'bookings', 'customers', 'trips',
  ];
  for (const t of tables) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
