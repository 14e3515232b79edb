// Recover jobs answer at once (src/webhooks/recover/): the total is counted afterwards, in bounded chunks, by the
// job itself. `counting` is 1 until it is known; meanwhile `total` holds the count so far (each chunk commits it).
// Jobs from before this migration had their total counted up front: 0.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('recover_jobs')
    .addColumn('counting', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('recover_jobs').dropColumn('counting').execute();
}
