// Travellers' personal data (issue 34): erasures are recorded without the person's data (a SHA-256 of the e-mail,
// who asked, what went), and a person's enquiries and reviews are found by index, not by reading every record: an
// enquiry's e-mail and a review's author name (both lower-cased) become columns, filled from the stored records.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { dialectOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const pg = dialectOf(db) === 'postgres';
  const bigint = pg ? 'bigint' : 'integer';
  await db.schema.createTable('erasures')
    .addColumn('id', 'text', (c) => c.primaryKey()) // ers_…
    .addColumn('email_sha256', 'text') // of the lower-cased e-mail; null when asked by customer id alone
    .addColumn('customer_id', bigint)
    .addColumn('requested_by', 'text', (c) => c.notNull()) // host | admin | wordpress | cli
    .addColumn('requester', 'text') // the admin's e-mail, the OS user; null for the host token
    .addColumn('status', 'text', (c) => c.notNull()) // running | succeeded | failed
    .addColumn('step', 'text', (c) => c.notNull())
    .addColumn('counts', 'text', (c) => c.notNull()) // JSON: what was found and what was erased so far
    .addColumn('webhooks', 'text', (c) => c.notNull()) // JSON: the webhooks that received the person's data
    .addColumn('event_id', 'text') // the customer.erased event, when one was recorded
    .addColumn('lease_until', bigint, (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.alterTable('enquiries').addColumn('email', 'text').execute();
  await db.schema.alterTable('reviews').addColumn('author', 'text').execute();
  if (pg) {
    await sql`UPDATE enquiries SET email = lower(data::json->>'email')`.execute(db);
    await sql`UPDATE reviews SET author = lower(data::json->>'author_name')`.execute(db);
  } else {
    await sql`UPDATE enquiries SET email = lower(json_extract(data, '$.email'))`.execute(db);
    await sql`UPDATE reviews SET author = lower(json_extract(data, '$.author_name'))`.execute(db);
  }
  await db.schema.createIndex('enquiries_email').on('enquiries').columns(['email']).execute();
  await db.schema.createIndex('reviews_author').on('reviews').columns(['author']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('reviews_author').ifExists().execute();
  await db.schema.dropIndex('enquiries_email').ifExists().execute();
  await db.schema.alterTable('reviews').dropColumn('author').execute();
  await db.schema.alterTable('enquiries').dropColumn('email').execute();
  await db.schema.dropTable('erasures').ifExists().execute();
}
