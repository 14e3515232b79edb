// The event feed (issue 35, src/feed/): every event is stored whatever the subscriptions, and read by type, by
// record and in id order, each through an index walked in order (O(page) at ten million events); consumers' positions
// are kept per API key. `events_type_id` is also made by another change: created only if it is not there.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('events_type_id').ifNotExists().on('events').columns(['type', 'id']).execute();
  await db.schema.createIndex('events_record_id').ifNotExists().on('events').columns(['resource', 'record_id', 'id'])
    .execute();
  await db.schema.createTable('feed_consumers')
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('feed_consumers_pk', ['key_id', 'name'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('feed_consumers').ifExists().execute();
  await db.schema.dropIndex('events_record_id').ifExists().execute();
}
