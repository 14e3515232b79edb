// Every event is stored now (the feed, migration 0027), so each index on events is paid by every host write. Two
// serve nothing any more: events_record (resource, record_id) is the head of events_record_id, which answers the same
// lookups; events_created (created_at) was the old pruning's, and events are pruned by id range (ids sort by time).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_record').ifExists().execute();
  await db.schema.dropIndex('events_created').ifExists().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('events_created').ifNotExists().on('events').columns(['created_at']).execute();
  await db.schema.createIndex('events_record').ifNotExists().on('events').columns(['resource', 'record_id']).execute();
}
