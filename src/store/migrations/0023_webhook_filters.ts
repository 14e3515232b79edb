// Payload filters per webhook (issue 36): the filter (JSON, null: every event of its types), what its preview found
// when it was saved, and on each event the webhooks whose filter skipped it (nothing is lost: the event is stored
// and the console says who skipped it). events (type, id) serves "the last 50 events of these types" (the preview;
// the event feed creates the same index, hence ifNotExists).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').addColumn('filter', 'text').execute();
  await db.schema.alterTable('webhooks').addColumn('filter_preview', 'text').execute();
  await db.schema.alterTable('events').addColumn('skipped_by_filter', 'text').execute();
  await db.schema.createIndex('events_type_id').ifNotExists().on('events').columns(['type', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').dropColumn('skipped_by_filter').execute();
  await db.schema.alterTable('webhooks').dropColumn('filter_preview').execute();
  await db.schema.alterTable('webhooks').dropColumn('filter').execute();
}
