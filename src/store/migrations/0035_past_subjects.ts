// Whose a record's past events were (issue 34): when a host deletes a customer, booking, enquiry or review, or a
// booking or customer comes to name another e-mail or customer, its stored events still hold the person it named. A
// row here keeps that link (a SHA-256 of the e-mail or of a review's author name, never either; the customer id; the
// range of events that were that person's), so an erasure or an export of that person finds those events although no
// record names them any more.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('past_subjects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('record_id', 'bigint', (c) => c.notNull())
    .addColumn('email_sha256', 'text')
    .addColumn('name_sha256', 'text')
    .addColumn('customer_id', 'bigint')
    .addColumn('from_event_id', 'text', (c) => c.notNull())
    .addColumn('until_event_id', 'text', (c) => c.notNull())
    .addColumn('changed_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('past_subjects_email').on('past_subjects').column('email_sha256').execute();
  await db.schema.createIndex('past_subjects_name').on('past_subjects').column('name_sha256').execute();
  await db.schema.createIndex('past_subjects_customer').on('past_subjects').column('customer_id').execute();
  await db.schema.createIndex('past_subjects_record').on('past_subjects')
    .columns(['resource', 'record_id', 'changed_at_ms']).execute();
  await db.schema.createIndex('past_subjects_until').on('past_subjects').column('until_event_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('past_subjects').ifExists().execute();
}
