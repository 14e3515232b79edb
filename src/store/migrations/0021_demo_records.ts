// The demo catalogue's marks (`waypost demo`, src/demo/): every record it wrote and every API key it made, so that
// host writes never land on a demo record (src/host/demo-guard.ts) and `waypost demo --remove` removes exactly the
// demo, whatever the host has written beside it.
import type { Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const bigint = dialectOf(db) === 'postgres' ? 'bigint' : 'integer';
  await db.schema.createTable('demo_records')
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('id', bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('demo_records_pk', ['resource', 'id'])
    .execute();
  await db.schema.createTable('demo_api_keys')
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('demo_api_keys').ifExists().execute();
  await db.schema.dropTable('demo_records').ifExists().execute();
}
