// Events missed while a webhook was off (issue 35): each time a webhook is disabled (by an admin, the CLI, or
// automatically after failures) an off period opens, and re-enabling closes it, so a recover, even one run much later,
// knows exactly which stored events happened while it was off. Webhooks disabled before this migration get a period
// from their last change. A recover job counts the missed events apart from its redeliveries.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('webhook_off_periods')
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('off_at', 'text', (c) => c.notNull()) // ISO 8601
    .addColumn('on_at', 'text') // null while it is still off
    .addColumn('reason', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_off_periods_pk', ['webhook_id', 'off_at'])
    .execute();
  await sql`INSERT INTO webhook_off_periods (webhook_id, off_at, on_at, reason)
    SELECT id, updated_at, NULL, disabled_reason FROM webhooks
    WHERE active = 0 AND deleted_at IS NULL AND disabled_reason IS NOT NULL`.execute(db);
  for (const column of ['include_missed', 'missed_total', 'missed_queued']) {
    await db.schema.alterTable('recover_jobs')
      .addColumn(column, 'integer', (c) => c.notNull().defaultTo(0)).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['include_missed', 'missed_total', 'missed_queued']) {
    await db.schema.alterTable('recover_jobs').dropColumn(column).execute();
  }
  await db.schema.dropTable('webhook_off_periods').ifExists().execute();
}
