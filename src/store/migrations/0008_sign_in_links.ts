// Signing in from WordPress ("Open Webhooks & API"): single-use links valid 60 s, of which only a SHA-256 is kept,
// and admins made by such a link on first use (they have no password until one is set).
import type { Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const bigint = dialectOf(db) === 'postgres' ? 'bigint' : 'integer';
  await db.schema.createTable('admin_sign_in_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', bigint, (c) => c.notNull())
    .execute();
  // null: made by `waypost admin create` or the setup link (before this migration, all of them).
  await db.schema.alterTable('admins').addColumn('created_via', 'text').execute();
  await db.schema.alterTable('admins').addColumn('name', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('admin_sign_in_links').ifExists().execute();
  await db.schema.alterTable('admins').dropColumn('created_via').execute();
  await db.schema.alterTable('admins').dropColumn('name').execute();
}
