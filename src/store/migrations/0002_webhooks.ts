// Webhooks, events, deliveries (the transactional outbox), delivery attempts (the log) and e-mail alerts.
import type { Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const bigint = dialectOf(db) === 'postgres' ? 'bigint' : 'integer';

  await db.schema.createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();

  await db.schema.createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('resource', 'text')
    .addColumn('record_id', bigint)
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('test', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema.createTable('deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', bigint)
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', bigint)
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('cancel_reason', 'text')
    .addColumn('redelivery_of', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();

  await db.schema.createTable('delivery_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('request_url', 'text', (c) => c.notNull())
    .addColumn('request_headers', 'text', (c) => c.notNull())
    .addColumn('request_body', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_headers', 'text')
    .addColumn('response_body', 'text')
    .addColumn('error', 'text')
    .addColumn('success', 'integer', (c) => c.notNull())
    .execute();

  await db.schema.createTable('alerts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('delivery_id', 'text')
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  // The claim query: due pending deliveries in order of due time.
  await db.schema.createIndex('deliveries_due').on('deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('deliveries_webhook').on('deliveries').columns(['webhook_id', 'id']).execute();
  await db.schema.createIndex('deliveries_event').on('deliveries').columns(['event_id']).execute();
  await db.schema.createIndex('deliveries_created').on('deliveries').columns(['created_at']).execute();
  await db.schema.createIndex('attempts_delivery').on('delivery_attempts').columns(['delivery_id', 'attempt'])
    .execute();
  await db.schema.createIndex('alerts_created').on('alerts').columns(['created_at']).execute();
  await db.schema.createIndex('events_created').on('events').columns(['created_at']).execute();
  // A payment's completion fires once: the event derivation looks for an earlier event of the same record.
  await db.schema.createIndex('events_record').on('events').columns(['resource', 'record_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['alerts', 'delivery_attempts', 'deliveries', 'events', 'webhooks']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
