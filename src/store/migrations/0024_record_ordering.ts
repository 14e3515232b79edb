// Per-record order, opt-in per webhook (issue 36): `webhooks.ordering` ('none' | 'record'). A delivery of an ordered
// webhook carries its record's key (`order_key`, e.g. `bookings:42`); one queued while an earlier delivery of the same
// webhook and record is pending waits for it (`waits_for`, next_attempt_at null: the claim never sees it) and is made
// due when that one ends. Both indexes are partial: an unordered webhook's deliveries are in neither (no cost to it),
// and neither holds a column the claim changes (its updates stay HOT, migration 0015).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks')
    .addColumn('ordering', 'text', (c) => c.notNull().defaultTo('none')).execute();
  await db.schema.alterTable('deliveries').addColumn('order_key', 'text').execute();
  await db.schema.alterTable('deliveries').addColumn('waits_for', 'text').execute();
  // The pending deliveries of one webhook and record (the chain a new one joins at its end).
  await db.schema.createIndex('deliveries_order_chain').on('deliveries').columns(['webhook_id', 'order_key'])
    .where(sql.ref('order_key'), 'is not', null).where(sql.ref('status'), '=', 'pending').execute();
  // The delivery that waits for one that just ended.
  await db.schema.createIndex('deliveries_waits_for').on('deliveries').column('waits_for')
    .where(sql.ref('waits_for'), 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('deliveries_waits_for').ifExists().execute();
  await db.schema.dropIndex('deliveries_order_chain').ifExists().execute();
  await db.schema.alterTable('deliveries').dropColumn('waits_for').execute();
  await db.schema.alterTable('deliveries').dropColumn('order_key').execute();
  await db.schema.alterTable('webhooks').dropColumn('ordering').execute();
}
