// Minimal payloads, opt-in per webhook (issue 34): `webhooks.payload` ('full' | 'minimal'). A minimal payload carries
// the record's id, the ids of its related records and its API link, no personal fields (webhooks/delivery/minimal.ts).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').addColumn('payload', 'text', (c) => c.notNull().defaultTo('full')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').dropColumn('payload').execute();
}
