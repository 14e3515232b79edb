// The console's Events view (Settings > Webhooks & API > Events): the feed newest first with the same `type` and
// `record` filters and the same index walks (src/feed/read.ts), one event with what happened to it at each webhook,
// and "Send to webhook…", one more delivery of a stored event queued through the outbox like any other.
import type { Kysely } from 'kysely';
import { recordAudit, type Actor } from '../audit/record.js';
import type { Core } from '../core.js';
import { conflict, notFound } from '../errors.js';
import { forUpdate } from '../store/locks.js';
import type { Database } from '../store/tables.js';
import { envelopeJson } from '../webhooks/delivery/request.js';
import { getDeliveryView, type DeliveryView } from '../webhooks/delivery-log.js';
import { queueDeliveries, wakeWorkers } from '../webhooks/outbox.js';
import type { EventRow, WebhookRow } from '../webhooks/tables.js';
import {
  encodeCursor, feedFilter, parseAfter, parseRecord, parseTypes, recordParam, type FeedFilter,
} from './params.js';
import { readPage } from './read.js';
import type { EventDetail, EventListPage, EventOutcomeKind, EventWebhookOutcome } from './views.js';

export interface EventListQuery {
  type?: string;
  record?: string;
  after?: string;
  perpage?: number;
}

/** The list's request as the feed's filter, newest first (400 naming `type`, `record` or `after`). */
export function listFilter(core: Core, q: EventListQuery): FeedFilter {
  const after = q.after === undefined ? null : parseAfter(q.after, 'desc');
  // Checked here under the console's names; feedFilter parses the same values again.
  parseTypes(q.type, 'type');
  parseRecord(q.record);
  return feedFilter({ types: q.type, record: q.record, after: q.after, order: 'desc' }, after, core.clock.now(),
    core.config.eventRetentionDays);
}

/** GET /admin/api/events: newest first, O(page) whatever the filters (the feed's walks, in descending order). */
export async function listEvents(core: Core, q: EventListQuery): Promise<EventListPage> {
  const filter = listFilter(core, q);
  const page = await readPage(core.db, filter, q.perpage ?? 25);
  const last = page.items.at(-1);
  return {
    items: page.items.map((e) => ({
      id: e.id, type: e.type, record: recordParam(e.resource, e.record_id), created_at: e.created_at,
    })),
    next: page.more && last ? encodeCursor('desc', last.id) : null,
  };
}

/** Any stored event, test samples included (the feed leaves those out). */
async function eventRow(core: Core, id: string): Promise<EventRow> {
  const row = await core.db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`Event ${id}`);
  return row;
}

const parseList = (text: string | null | undefined): string[] => {
  try {
    const list: unknown = JSON.parse(text ?? '[]');
    return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
};

/** Through deliveries_event: an event has one delivery per webhook, and their redeliveries. */
export const deliveriesOfEvent = (db: Kysely<Database>, id: string) => db.selectFrom('deliveries')
  .select(['id', 'webhook_id', 'status', 'last_status', 'attempts', 'redelivery_of', 'created_at'])
  .where('event_id', '=', id);

/** Why a webhook got no delivery of the event, most telling reason first. */
function noDeliveryReason(event: EventRow, webhook: WebhookRow, skipped: Set<string>): EventOutcomeKind {
  if (skipped.has(webhook.id)) return 'skipped_by_filter';
  if (event.test) return 'not_sent';
  if (webhook.created_at > event.created_at) return 'created_later';
  if (!parseList(webhook.events).includes(event.type)) return 'not_subscribed';
  return webhook.active === 1 ? 'not_sent' : 'disabled';
}

/** GET /admin/api/events/:id: the envelope, and for each webhook (not deleted) what happened to the event there. */
export async function eventDetail(core: Core, id: string): Promise<EventDetail> {
  const event = await eventRow(core, id);
  const [webhooks, deliveries] = await Promise.all([
    core.db.selectFrom('webhooks').selectAll().where('deleted_at', 'is', null)
      .orderBy('created_at').orderBy('id').execute(),
    deliveriesOfEvent(core.db, id).execute(),
  ]);
  const byWebhook = new Map<string, typeof deliveries>();
  for (const d of [...deliveries].sort((a, b) => (a.id < b.id ? 1 : -1))) {
    byWebhook.set(d.webhook_id, [...(byWebhook.get(d.webhook_id) ?? []), d]);
  }
  const skipped = new Set(parseList(event.skipped_by_filter));
  const outcomes: EventWebhookOutcome[] = webhooks.map((w) => {
    const own = byWebhook.get(w.id) ?? [];
    return {
      webhook_id: w.id,
      webhook_name: w.name,
      active: w.active === 1,
      outcome: own.length > 0 ? own[0].status : noDeliveryReason(event, w, skipped),
      deliveries: own.map(({ webhook_id: _, ...d }) => ({ ...d, attempts: Number(d.attempts) })),
    };
  });
  return {
    envelope: JSON.parse(envelopeJson(event)) as EventDetail['envelope'],
    record: recordParam(event.resource, event.record_id),
    test: event.test === 1,
    webhooks: outcomes,
  };
}

/**
 * POST /admin/api/events/:id/send: one delivery of the event to the webhook, due now (outside any per-record order,
 * like a redelivery). The webhook row is locked first (PostgreSQL) so a disable committing meanwhile either waits
 * for this delivery and cancels it, or is seen here and refused. With `actor`, recorded in the audit log in the same
 * transaction.
 */
export async function sendEventTo(core: Core, id: string, webhookId: string, actor?: Actor): Promise<DeliveryView> {
  const deliveryId = await core.db.transaction().execute(async (trx) => {
    const event = await trx.selectFrom('events').select(['id', 'type']).where('id', '=', id).executeTakeFirst();
    if (!event) throw notFound(`Event ${id}`);
    const webhook = await forUpdate(trx, trx.selectFrom('webhooks').selectAll().where('id', '=', webhookId))
      .executeTakeFirst();
    if (!webhook || webhook.deleted_at !== null) throw notFound(`Webhook ${webhookId}`);
    if (webhook.active !== 1) {
      const why = webhook.disabled_reason ? ` (${webhook.disabled_reason.replace(/\.$/, '')})` : '';
      throw conflict('webhook_disabled', `The webhook "${webhook.name}" is disabled${why}. Re-enable it first, `
        + 'then send the event.');
    }
    const [queued] = await queueDeliveries(trx, core, [{ webhookId, eventId: event.id, eventType: event.type }]);
    await recordAudit(core, actor, { action: 'event.sent', targetType: 'event', targetId: id,
      details: { webhook: webhookId } }, trx);
    return queued;
  });
  wakeWorkers(core);
  core.log.info({ deliveryId, eventId: id, webhookId }, 'event sent to a webhook from the console');
  return getDeliveryView(core, deliveryId);
}
