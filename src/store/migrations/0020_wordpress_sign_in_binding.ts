// A WordPress sign-in link opens only an account bound to the WordPress user it was asked for (issue 29): the site
// and user id an account may be opened by, the last refused request its owner may allow in the console, and the
// same two on each link. Links live 60 s, so the table is remade rather than altered (its NOT NULL columns).
import type { Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

async function createLinks(db: Kysely<any>, bound: boolean): Promise<void> {
  const bigint = dialectOf(db) === 'postgres' ? 'bigint' : 'integer';
  let table = db.schema.createTable('admin_sign_in_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', bigint, (c) => c.notNull());
  if (bound) {
    table = table.addColumn('wp_site_url', 'text', (c) => c.notNull())
      .addColumn('wp_user_id', bigint, (c) => c.notNull());
  }
  await table.execute();
}

export async function up(db: Kysely<any>): Promise<void> {
  const bigint = dialectOf(db) === 'postgres' ? 'bigint' : 'integer';
  // null: no WordPress user may open the account (every password account until its owner allows one).
  await db.schema.alterTable('admins').addColumn('wp_site_url', 'text').execute();
  await db.schema.alterTable('admins').addColumn('wp_user_id', bigint).execute();
  await db.schema.alterTable('admins').addColumn('wp_link_request', 'text').execute();
  await db.schema.dropTable('admin_sign_in_links').execute();
  await createLinks(db, true);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('admin_sign_in_links').execute();
  await createLinks(db, false);
  await db.schema.alterTable('admins').dropColumn('wp_link_request').execute();
  await db.schema.alterTable('admins').dropColumn('wp_user_id').execute();
  await db.schema.alterTable('admins').dropColumn('wp_site_url').execute();
}
