// The recover's work: each batch of up to BATCH deliveries is read and redelivered in its own short transaction,
// then the loop yields, so host writes, the API and the worker get the database between batches (one transaction
// over 50,000 rows held SQLite's only write lock for its whole length). Idempotent per batch: a delivery that already
// has a redelivery is skipped, and on PostgreSQL a named lock per webhook makes two recovers' batches take turns.
import type { Kysely } from 'kysely';
import type { Core } from '../../core.js';
import { conflict, notFound } from '../../errors.js';
import { lockNames } from '../../store/locks.js';
import type { Database } from '../../store/tables.js';
import { webhookRow } from '../manage.js';
import { queueDeliveries, wakeWorkers } from '../outbox.js';
import type { DeliveryStatus } from '../tables.js';
import type { RecoverRequest } from './input.js';
import { advanceJob } from './jobs.js';
import { missedPage, type MissedCursor, type MissedScope } from './missed.js';

const BATCH = 500;
type Db = Kysely<Database>;

/** Refuses a deleted or disabled webhook (a disabled one would cancel the redeliveries at once). */
export async function checkWebhook(db: Db, webhookId: string): Promise<void> {
  const webhook = await webhookRow(db, webhookId);
  if (!webhook || webhook.deleted_at !== null) throw notFound(`Webhook ${webhookId}`);
  if (webhook.active !== 1) {
    const detail = `The webhook "${webhook.name}" is disabled. Re-enable it first, then recover its deliveries.`;
    throw conflict('webhook_disabled', detail);
  }
}

// Served by deliveries(webhook_id, status, id) and deliveries(redelivery_of) (migration 0010). One status at a time:
// with `status IN (…)` the index no longer gives id order, and every batch sorted all the remaining rows again.
function matching(db: Db, webhookId: string, req: RecoverRequest, status: DeliveryStatus) {
  return db.selectFrom('deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .where('d.webhook_id', '=', webhookId)
    .where('d.status', '=', status)
    .where('d.created_at', '>=', req.since)
    .where('e.test', '=', 0) // test sends are one-off samples, not data the receiver missed
    .where(({ not, exists, selectFrom }) => not(exists(
      selectFrom('deliveries as r').select('r.id').whereRef('r.redelivery_of', '=', 'd.id'))));
}

/** Ids per counting statement: each is a bounded read of the index (about 0.1 s on PostgreSQL at the worst). */
export const COUNT_CHUNK = 5_000;

export interface CountOptions {
  /** Asked between chunks: true ends the count (answered as null). */
  stopping?: () => boolean;
  /** The count so far, after each full chunk (the job commits it and renews its lease). */
  onChunk?: (counted: number) => Promise<void>;
}

/** How many deliveries a recover would redeliver now: counted COUNT_CHUNK ids at a time in id order, each chunk
 *  its own statement with a yield after it, never one count over all the matches (seconds at a million). */
export async function countRecoverable(db: Db, webhookId: string, req: RecoverRequest, options: CountOptions = {}):
Promise<number | null> {
  let n = 0;
  for (const status of req.statuses) {
    let after = '';
    for (;;) {
      if (options.stopping?.()) return null;
      const chunk = matching(db, webhookId, req, status).select('d.id').where('d.id', '>', after)
        .orderBy('d.id').limit(COUNT_CHUNK).as('c');
      const row = await db.selectFrom(chunk)
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('c.id').as('last')]).executeTakeFirst();
      const counted = Number(row?.n ?? 0);
      n += counted;
      if (counted < COUNT_CHUNK) break;
      after = String(row?.last);
      await options.onChunk?.(n);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return n;
}

export interface RunOptions {
  /** Asked between batches: true ends the run (the process is closing). */
  stopping?: () => boolean;
  onBatch?: (queued: number) => void;
}

/** A batch's start, in its transaction: two recovers at once on PostgreSQL take turns (one batch waits for the
 *  other's, then sees what it queued), and the webhook's row is held until commit (a no-op update: the lock without a
 *  dialect's FOR SHARE), so a disable either comes first and stops the run here, or waits and then cancels this batch
 *  with the other pending ones. */
async function holdWebhook(trx: Db, webhookId: string): Promise<void> {
  await lockNames(trx, [`webhook-recover:${webhookId}`]);
  const held = await trx.updateTable('webhooks').set((eb) => ({ active: eb.ref('active') }))
    .where('id', '=', webhookId).where('active', '=', 1).where('deleted_at', 'is', null).executeTakeFirst();
  if (Number(held.numUpdatedRows) === 0) await checkWebhook(trx, webhookId); // throws why
}

/** Redelivers in batches until none is left (or `stopping`); answers how many this run queued. */
export async function runBatches(core: Core, jobId: string, webhookId: string, req: RecoverRequest,
  options: RunOptions = {}): Promise<number> {
  let total = 0;
  for (const status of req.statuses) {
    if (options.stopping?.()) break;
    total += await runStatus(core, jobId, webhookId, req, status, options);
  }
  return total;
}

async function runStatus(core: Core, jobId: string, webhookId: string, req: RecoverRequest, status: DeliveryStatus,
  options: RunOptions): Promise<number> {
  let total = 0;
  let after = '';
  for (;;) {
    if (options.stopping?.()) return total;
    const batch = await core.db.transaction().execute(async (trx) => {
      await holdWebhook(trx, webhookId);
      const rows = await matching(trx, webhookId, req, status).select(['d.id', 'd.event_id', 'd.event_type'])
        .where('d.id', '>', after).orderBy('d.id').limit(BATCH).execute();
      if (rows.length > 0) {
        await queueDeliveries(trx, core, rows.map((d) => ({
          webhookId, eventId: d.event_id, eventType: d.event_type, redeliveryOf: d.id,
        })));
      }
      await advanceJob(trx, core, jobId, rows.length);
      return rows;
    });
    if (batch.length === 0) return total;
    wakeWorkers(core);
    total += batch.length;
    after = batch[batch.length - 1].id;
    options.onBatch?.(batch.length);
    if (batch.length < BATCH) return total;
    // Let whatever waits for the database (a host write, an API read, the worker's claim) go first.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Queues the events missed while the webhook was off (missed.ts), a page of BATCH per type and transaction, in commit
 *  order; answers how many this run queued. Each page is read after the lock, so a second recover sends none again. */
export async function runMissed(core: Core, jobId: string, scope: MissedScope, options: RunOptions = {}):
Promise<number> {
  let total = 0;
  let cursor: MissedCursor | null = { range: 0, after: '' };
  while (cursor) {
    if (options.stopping?.()) return total;
    const from: MissedCursor = cursor;
    const page = await core.db.transaction().execute(async (trx) => {
      await holdWebhook(trx, scope.webhookId);
      const found = await missedPage(trx, scope, from, BATCH);
      await queueDeliveries(trx, core, found.deliveries);
      await advanceJob(trx, core, jobId, found.deliveries.length, found.deliveries.length);
      return found;
    });
    cursor = page.next;
    if (page.deliveries.length > 0) {
      wakeWorkers(core);
      total += page.deliveries.length;
      options.onBatch?.(page.deliveries.length);
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return total;
}
