// The delivery log's newer questions, each answered from an index: has this delivery been redelivered already
// (recover skips those), how many deliveries of a webhook are pending or failed (the disable confirmation,
// recover's scan, the log filtered by webhook and status, newest first).
import type { Kysely } from 'kysely';

const INDEXES: Array<[string, string[]]> = [
  ['deliveries_redelivery_of', ['redelivery_of']],
  ['deliveries_webhook_status', ['webhook_id', 'status', 'id']],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, columns] of INDEXES) await db.schema.createIndex(name).on('deliveries').columns(columns).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of INDEXES) await db.schema.dropIndex(name).ifExists().execute();
}
