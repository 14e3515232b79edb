// The audit log of admin actions (issue 34): who created, changed, disabled or deleted a webhook or key, revealed or
// rotated a secret, changed settings, recovered, erased or exported, when and from where (src/audit/). Ids begin with
// their time (src/ids.ts), so every filtered page walks one (filter, id) index newest first and `since`/`until` are id
// ranges. Append-only for the application: a trigger refuses UPDATE on both databases; retention pruning deletes.
// admin_sessions.opened_via says which sessions a WordPress sign-in link opened, so their actions are WordPress's.
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

const REFUSED = 'audit_log is append-only: its rows cannot be changed';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey()) // aud_…, time-sortable
    .addColumn('at', 'text', (c) => c.notNull()) // ISO 8601
    .addColumn('actor_type', 'text', (c) => c.notNull()) // admin | wordpress | cli | host
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull()) // webhook.created, key.deleted, settings.changed…
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('details', 'text') // JSON; never a secret
    .addColumn('ip', 'text') // null from the CLI
    .execute();
  await db.schema.createIndex('audit_log_action_id').on('audit_log').columns(['action', 'id']).execute();
  await db.schema.createIndex('audit_log_actor_type_id').on('audit_log').columns(['actor_type', 'id']).execute();
  await db.schema.createIndex('audit_log_target_id').on('audit_log').columns(['target_id', 'id']).execute();
  if (dialectOf(db) === 'postgres') {
    await sql`CREATE FUNCTION waypost_audit_log_no_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION ${sql.lit(REFUSED)} USING ERRCODE = 'restrict_violation'; END $$`.execute(db);
    await sql`CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
      FOR EACH ROW EXECUTE FUNCTION waypost_audit_log_no_update()`.execute(db);
  } else {
    await sql`CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
      BEGIN SELECT RAISE(ABORT, ${sql.lit(REFUSED)}); END`.execute(db);
  }
  // null: a password or setup-link sign-in; 'wordpress': a WordPress sign-in link.
  await db.schema.alterTable('admin_sessions').addColumn('opened_via', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('admin_sessions').dropColumn('opened_via').execute();
  await db.schema.dropTable('audit_log').ifExists().execute();
  if (dialectOf(db) === 'postgres') await sql`DROP FUNCTION IF EXISTS waypost_audit_log_no_update()`.execute(db);
}
