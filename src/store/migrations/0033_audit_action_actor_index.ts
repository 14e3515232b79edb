// The audit log filtered by action and by who acted at once (the console's two selects): an (action, actor_type, id)
// index, so such a page walks only matching entries newest first. With 0031's single-filter indexes alone, a rare
// pair (say key.deleted by the host token) read every entry of the action to fill a page.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('audit_log_action_actor_type_id').on('audit_log')
    .columns(['action', 'actor_type', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_log_action_actor_type_id').ifExists().execute();
}
