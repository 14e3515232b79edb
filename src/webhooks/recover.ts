// Recover (DESIGN.md "Delivery log"): after an outage or a disable, redeliver at once every delivery of one webhook
// that failed or was cancelled since a given time. Each is redelivered as the manual redeliver does (a new delivery
// of the same event, `redelivery_of` the original), and only once: a delivery that already has a redelivery is
// skipped, so running recover twice sends nothing twice. One transaction, read and queued in batches.
import type { Core } from '../core.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { lockNames } from '../store/locks.js';
import { webhookRow } from './manage.js';
import { queueDeliveries, wakeWorkers } from './outbox.js';
import type { DeliveryStatus } from './tables.js';

export const RECOVERABLE: readonly DeliveryStatus[] = ['failed', 'cancelled'];
const BATCH = 500;

export interface RecoverInput {
  since?: unknown;
  statuses?: unknown;
}

const invalid = (field: string, detail: string) => badRequest('invalid_field', `${field}: ${detail}`, { field });

function checkInput(body: unknown): { since: string; statuses: DeliveryStatus[] } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('invalid_body', 'the body must be a JSON object', { field: '(body)' });
  }
  const { since, statuses } = body as RecoverInput;
  if (typeof since !== 'string' || Number.isNaN(Date.parse(since))) {
    throw invalid('since', 'give an ISO 8601 time, e.g. 2026-01-31T00:00:00Z');
  }
  let chosen: DeliveryStatus[] = [...RECOVERABLE];
  if (statuses !== undefined) {
    const unknown = (s: unknown) => !RECOVERABLE.includes(s as DeliveryStatus);
    if (!Array.isArray(statuses) || statuses.length === 0 || statuses.some(unknown)) {
      throw invalid('statuses', `choose one or both of ${RECOVERABLE.join(', ')}`);
    }
    chosen = [...new Set(statuses as DeliveryStatus[])];
  }
  return { since: new Date(Date.parse(since)).toISOString(), statuses: chosen };
}

/** Queues one redelivery of every matching delivery not redelivered yet; answers how many were queued. */
export async function recoverDeliveries(core: Core, webhookId: string, body: unknown): Promise<{ queued: number }> {
  const { since, statuses } = checkInput(body);
  const queued = await core.db.transaction().execute(async (trx) => {
    // Two recovers at once on PostgreSQL: the second waits, then sees the first one's redeliveries and skips them.
    await lockNames(trx, [`webhook-recover:${webhookId}`]);
    const webhook = await webhookRow(trx, webhookId);
    if (!webhook || webhook.deleted_at !== null) throw notFound(`Webhook ${webhookId}`);
    if (webhook.active !== 1) {
      const detail = `The webhook "${webhook.name}" is disabled. Re-enable it first, then recover its deliveries.`;
      throw conflict('webhook_disabled', detail);
    }
    let total = 0;
    let after = '';
    for (;;) {
      // Served by deliveries(webhook_id, status, id) and deliveries(redelivery_of) (migration 0010).
      const batch = await trx.selectFrom('deliveries as d')
        .innerJoin('events as e', 'e.id', 'd.event_id')
        .select(['d.id', 'd.event_id', 'd.event_type'])
        .where('d.webhook_id', '=', webhookId)
        .where('d.status', 'in', statuses)
        .where('d.created_at', '>=', since)
        .where('d.id', '>', after)
        .where('e.test', '=', 0) // test sends are one-off samples, not data the receiver missed
        .where(({ not, exists, selectFrom }) => not(exists(
          selectFrom('deliveries as r').select('r.id').whereRef('r.redelivery_of', '=', 'd.id'))))
        .orderBy('d.id').limit(BATCH).execute();
      if (batch.length === 0) break;
      await queueDeliveries(trx, core, batch.map((d) => ({
        webhookId, eventId: d.event_id, eventType: d.event_type, redeliveryOf: d.id,
      })));
      total += batch.length;
      after = batch[batch.length - 1].id;
      if (batch.length < BATCH) break;
    }
    return total;
  });
  if (queued > 0) wakeWorkers(core);
  core.log.info({ webhookId, since, statuses, queued }, 'deliveries recovered');
  return { queued };
}
