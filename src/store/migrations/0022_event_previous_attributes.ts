// An `*.updated` event keeps what changed (issue 36): the changed fields' values before the write, as JSON, computed
// in the write's transaction and sent as the envelope's `previous_attributes` (as Stripe's events carry them).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').addColumn('previous_attributes', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').dropColumn('previous_attributes').execute();
}
