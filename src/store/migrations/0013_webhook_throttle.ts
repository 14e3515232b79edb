// Per-webhook throttle: a webhook's optional maximum of deliveries per second, and the next
// free send slot of each throttled webhook, shared by every worker process (one row per webhook, reserved with one
// atomic upsert). The slot is fractional milliseconds: 1000 / rate is rarely a whole number.
import type { Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const double = dialectOf(db) === 'postgres' ? 'double precision' : 'real';
  await db.schema.alterTable('webhooks').addColumn('max_per_second', 'integer').execute();
  await db.schema.createTable('webhook_throttle')
    .addColumn('webhook_id', 'text', (c) => c.primaryKey())
    .addColumn('next_slot_ms', double, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_throttle').execute();
  await db.schema.alterTable('webhooks').dropColumn('max_per_second').execute();
}
