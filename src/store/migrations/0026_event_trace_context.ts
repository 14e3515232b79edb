// Tracing (issue 37): an event keeps the W3C `traceparent` of the outbox insert that queued it, so each delivery
// attempt, made later by a worker that may be another process, joins the write's trace. Null when tracing is off.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').addColumn('traceparent', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').dropColumn('traceparent').execute();
}
