// Console accounts, server-side sessions and failed sign-in attempts (the login rate limit).
import type { Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const bigint = dialectOf(db) === 'postgres' ? 'bigint' : 'integer';

  await db.schema.createTable('admins')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_login_at', 'text')
    .execute();

  await db.schema.createTable('admin_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('admin_id', 'text', (c) => c.notNull())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', bigint, (c) => c.notNull())
    .addColumn('last_seen_at', bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('admin_sessions_admin').on('admin_sessions').columns(['admin_id']).execute();

  await db.schema.createTable('admin_login_failures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('at', bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('admin_login_failures_scope').on('admin_login_failures').columns(['scope', 'at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['admin_login_failures', 'admin_sessions', 'admins']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
