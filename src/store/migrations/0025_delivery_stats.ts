// Counters for the console's charts (issue 37), kept in the write path so a chart never scans the delivery log:
// webhook_stats has a row per (webhook, minute or hour, outcome) with its attempt count and a latency histogram in
// fixed buckets (p50/p95 come from them), and one health row per webhook (unit 'all': last success and failure, the
// current streak). api_usage_hours counts each key's calls per hour by status class.
import type { Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

/** The latency histogram's columns (l0…l11); their upper bounds are LATENCY_BOUNDS_MS in webhooks/stats/counts.ts. */
const LATENCY_COLUMNS = 12;

export async function up(db: Kysely<any>): Promise<void> {
  const bigint = dialectOf(db) === 'postgres' ? 'bigint' : 'integer';
  let stats = db.schema.createTable('webhook_stats')
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('unit', 'text', (c) => c.notNull())
    .addColumn('bucket', bigint, (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull());
  for (let i = 0; i < LATENCY_COLUMNS; i++) stats = stats.addColumn(`l${i}`, 'integer', (c) => c.notNull());
  await stats
    .addColumn('last_success', bigint)
    .addColumn('last_failure', bigint)
    .addColumn('streak', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_stats_pk', ['webhook_id', 'unit', 'bucket', 'outcome'])
    .execute();
  await db.schema.createTable('api_usage_hours')
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('hour', bigint, (c) => c.notNull())
    .addColumn('ok', 'integer', (c) => c.notNull())
    .addColumn('client_errors', 'integer', (c) => c.notNull())
    .addColumn('rate_limited', 'integer', (c) => c.notNull())
    .addColumn('server_errors', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('api_usage_hours_pk', ['key_id', 'hour'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('api_usage_hours').ifExists().execute();
  await db.schema.dropTable('webhook_stats').ifExists().execute();
}
