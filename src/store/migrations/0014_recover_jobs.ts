// Recover jobs (src/webhooks/recover/): a recover runs in short transactions, so its progress is a row that any
// API process can read. `lease_until` (ms) is renewed after every batch; a job still `running` past it was
// interrupted (its process died), and running recover again finishes the rest.
import type { Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const bigint = dialectOf(db) === 'postgres' ? 'bigint' : 'integer';
  await db.schema.createTable('recover_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('since', 'text', (c) => c.notNull())
    .addColumn('statuses', 'text', (c) => c.notNull()) // comma-separated
    .addColumn('status', 'text', (c) => c.notNull()) // running, done, interrupted, failed
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('queued', 'integer', (c) => c.notNull())
    .addColumn('lease_until', bigint, (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('recover_jobs_webhook').on('recover_jobs').columns(['webhook_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('recover_jobs').ifExists().execute();
}
