// The delivery log (DESIGN.md "Delivery log"): every delivery and every attempt, newest first, with filters, the
// detail of one delivery (its event envelope and attempts), manual redeliver, and the stored e-mail alerts.
import { sql } from 'kysely';
import { recordAudit, type Actor } from '../audit/record.js';
import type { Core } from '../core.js';
import { conflict, invalidParameter, notFound } from '../errors.js';
import { iso } from '../records/normalize.js';
import { RESOURCES } from '../records/schemas.js';
import { isEventType } from './catalog.js';
import { findRecords, parseLogSearch, type FoundRecords } from './log-search.js';
import { signalNote } from './delivery/schedule.js';
import { webhookRow } from './manage.js';
import { queueDelivery, wakeWorkers } from './outbox.js';
import { prunedNotes } from './retention.js';
import type { DeliveryRow, DeliveryStatus } from './tables.js';
import type { AlertView } from '../alerts/views.js';

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed', 'cancelled'];
/** The resources events concern (events.resource), for the search by record id. */
const RECORD_RESOURCES: readonly string[] = RESOURCES;

import type { AttemptView, DeliveryDetail, DeliveryView, LogWebhook, Page } from './views.js';

export type { AttemptView, AlertView, DeliveryDetail, DeliveryView, LogWebhook, Page };

export interface DeliveryQuery {
  webhook_id?: string;
  event_type?: string;
  status?: string;
  since?: string;
  until?: string;
  /** Search: one delivery, the deliveries of one event, or of the events about one record (`resource` optional). */
  delivery_id?: string;
  event_id?: string;
  record_id?: number | string;
  resource?: string;
  /** The search box: any of the ids above, or an e-mail, name or trip title (log-search.ts). */
  q?: string;
  page?: number | string;
  perpage?: number | string;
}

// ---------- query parameters ----------

function positiveInt(name: string, value: number | string | undefined, fallback: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max) {
    throw invalidParameter(name, `must be a whole number from 1 to ${max}`);
  }
  return n;
}

function isoParam(name: string, value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  const t = Date.parse(value);
  if (Number.isNaN(t)) {
    throw invalidParameter(name, `must be an ISO 8601 time, e.g. 2026-01-31T00:00:00Z (got "${value}")`);
  }
  return iso(t);
}

export function pageParams(
  query: { page?: number | string; perpage?: number | string },
): { page: number; perpage: number } {
  return {
    page: positiveInt('page', query.page, 1, 1_000_000), perpage: positiveInt('perpage', query.perpage, 20, 100),
  };
}

// ---------- reading ----------

type DeliveryJoined = DeliveryRow & {
  webhook_name: string | null; test: number | null; resource: string | null; record_id: number | string | null;
};

function deliveryView(r: DeliveryJoined): DeliveryView {
  return {
    id: r.id,
    webhook_id: r.webhook_id,
    webhook_name: r.webhook_name,
    event_id: r.event_id,
    event_type: r.event_type,
    resource: r.resource,
    record_id: r.record_id === null ? null : Number(r.record_id), // a PostgreSQL bigint arrives as a string
    status: r.status,
    attempts: r.attempts,
    last_status: r.last_status,
    last_error: r.last_error,
    next_attempt_at: r.next_attempt_at === null ? null : iso(Number(r.next_attempt_at)),
    cancel_reason: r.cancel_reason,
    redelivery_of: r.redelivery_of,
    test: r.test === 1,
    created_at: r.created_at,
    completed_at: r.completed_at,
  };
}

function deliveriesJoined(core: Core) {
  return core.db.selectFrom('deliveries')
    .leftJoin('webhooks', 'webhooks.id', 'deliveries.webhook_id')
    .leftJoin('events', 'events.id', 'deliveries.event_id')
    .selectAll('deliveries')
    .select([
      'webhooks.name as webhook_name', 'events.test as test', 'events.resource as resource',
      'events.record_id as record_id',
    ]);
}

/** Deliveries newest first, filtered by webhook, event type, status and creation time. */
export async function listDeliveries(core: Core, q: DeliveryQuery = {}): Promise<Page<DeliveryView>> {
  const { page, perpage, found, statements } = await listStatements(core, q);
  if (statements === null) return { items: [], total: 0, page, perpage, search: { records: 0, more: false } };
  const ids = (await core.db.executeQuery<{ id: string }>(statements.ids)).rows;
  const counted = (await core.db.executeQuery<{ n: number | string }>(statements.count)).rows[0];
  const rows = ids.length
    ? await deliveriesJoined(core).where('deliveries.id', 'in', ids.map((r) => r.id)).execute()
    : [];
  const byId = new Map(rows.map((r) => [r.id, r as DeliveryJoined]));
  const items = ids.map((r) => deliveryView(byId.get(r.id)!));
  if (!found) return { items, total: Number(counted.n), page, perpage };
  const records = found.records.reduce((n, r) => n + r.ids.length, 0);
  return { items, total: Number(counted.n), page, perpage, search: { records, more: found.more } };
}

/**
 * The statements of a listing, its page's ids and its total (null: a text search that found no record), after the
 * query is checked and a text search resolved to records; the plan tests read their plans.
 */
export async function listStatements(core: Core, q: DeliveryQuery) {
  for (const [name, value] of Object.entries(q)) {
    if (Array.isArray(value)) throw invalidParameter(name, 'give it once');
  }
  if (q.q !== undefined && typeof q.q !== 'string') throw invalidParameter('q', 'give it once');
  const { q: box, ...rest } = q;
  const search = parseLogSearch(box ?? '');
  // The box's id joins the other parameters (both must hold); its text is resolved to records first.
  const query: DeliveryQuery = search === null || 'text' in search ? rest : { ...rest, ...search };
  const { page, perpage } = pageParams(query);
  const statuses: readonly string[] = DELIVERY_STATUSES;
  if (query.status !== undefined && query.status !== '' && !statuses.includes(query.status)) {
    throw invalidParameter('status', `must be one of ${DELIVERY_STATUSES.join(', ')}`);
  }
  if (query.event_type !== undefined && query.event_type !== '' && !isEventType(query.event_type)) {
    throw invalidParameter('event_type', 'is not a known event type');
  }
  const since = isoParam('since', query.since);
  const until = isoParam('until', query.until);
  const recordId = query.record_id === undefined || query.record_id === '' ? null
    : positiveInt('record_id', query.record_id, 1, Number.MAX_SAFE_INTEGER);
  const resource = query.resource || null;
  if (resource !== null && !RECORD_RESOURCES.includes(resource)) {
    throw invalidParameter('resource', `must be one of ${RECORD_RESOURCES.join(', ')}`);
  }
  if (resource !== null && recordId === null) throw invalidParameter('record_id', 'give it with resource');
  for (const name of ['delivery_id', 'event_id'] as const) {
    const value = query[name];
    if (value !== undefined && (typeof value !== 'string' || value.length > 100)) {
      throw invalidParameter(name, 'must be an id of at most 100 characters');
    }
  }

  const found: FoundRecords | null = search !== null && 'text' in search ? await findRecords(core, search.text) : null;
  if (found?.records.length === 0) return { page, perpage, found, statements: null };
  // A search drives the page through its own index; the filters then check the few rows it finds. Written as an
  // expression (`|| ''`), a filter's column offers no index of its own: left to guess without statistics, SQLite
  // walked a webhook's or a status's deliveries (O(deliveries)) for one traveller's handful.
  const driven = found !== null || recordId !== null || Boolean(query.delivery_id || query.event_id);
  const column = (name: 'webhook_id' | 'event_type' | 'status' | 'created_at') => (driven
    ? sql<string>`${sql.ref(`deliveries.${name}`)} || ''` : sql.ref<string>(`deliveries.${name}`));
  let base = core.db.selectFrom('deliveries');
  if (query.webhook_id) base = base.where(column('webhook_id'), '=', query.webhook_id);
  if (query.event_type) base = base.where(column('event_type'), '=', query.event_type);
  if (query.status) base = base.where(column('status'), '=', query.status);
  if (since) base = base.where(column('created_at'), '>=', since);
  if (until) base = base.where(column('created_at'), '<', until);
  // Each search is an index lookup (the primary key, deliveries(event_id), events(resource, record_id)) that
  // matches few rows, so the page is still cheap; an IN list of every resource lets the record search use the
  // index whose first column is the resource.
  if (query.delivery_id) base = base.where('deliveries.id', '=', query.delivery_id);
  if (query.event_id) base = base.where('deliveries.event_id', '=', query.event_id);
  if (recordId !== null) {
    base = base.where('deliveries.event_id', 'in', core.db.selectFrom('events').select('events.id')
      .where('events.resource', 'in', resource ? [resource] : [...RECORD_RESOURCES])
      .where('events.record_id', '=', recordId));
  }
  if (found) {
    // One (resource, record_id) range of events_record_id per kind; their deliveries through deliveries_event.
    const records = found.records;
    base = base.where('deliveries.event_id', 'in', core.db.selectFrom('events').select('events.id')
      .where((eb) => eb.or(records.map(({ resource: kind, ids }) => eb.and([
        eb('events.resource', '=', kind), eb('events.record_id', 'in', ids)])))));
  }
  // Ids are time-sortable: newest first by id uses the primary key, or (webhook_id, id) for one webhook.
  const ids = base.select('deliveries.id').orderBy('deliveries.id', 'desc')
    .limit(perpage).offset((page - 1) * perpage).compile();
  const count = base.select((eb) => eb.fn.countAll().as('n')).compile();
  return { page, perpage, found, statements: { ids, count } };
}

function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try { return JSON.parse(text) as T; } catch { return fallback; }
}

export async function getDeliveryView(core: Core, id: string): Promise<DeliveryView> {
  const row = await deliveriesJoined(core).where('deliveries.id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`Delivery ${id}`);
  return deliveryView(row as DeliveryJoined);
}

/** One delivery with its event envelope and every attempt (request sent, response received). */
export async function getDelivery(core: Core, id: string): Promise<DeliveryDetail> {
  const delivery = await getDeliveryView(core, id);
  const event = await core.db.selectFrom('events').selectAll().where('id', '=', delivery.event_id).executeTakeFirst();
  const attempts = await core.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', id)
    .orderBy('attempt', 'asc').execute();
  const pruned = await prunedNotes(core);
  return {
    ...delivery,
    attempt_count: delivery.attempts,
    event: event
      ? {
        id: event.id, type: event.type, created_at: event.created_at, data: parseJson(event.data, null),
        skipped_by_filter: parseJson(event.skipped_by_filter ?? null, []),
      }
      : null,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      started_at: a.started_at,
      duration_ms: a.duration_ms,
      request: { url: a.request_url, headers: parseJson(a.request_headers, {}), body: a.request_body,
        pruned: pruned(a.id, 'payload') },
      response: a.response_status === null ? null : { status: a.response_status,
        headers: parseJson(a.response_headers, {}), body: a.response_body ?? '', pruned: pruned(a.id, 'response') },
      error: a.error,
      success: a.success === 1,
      // Derived from the recorded answer and the configured schedule, so it needs no column of its own.
      signal: a.response_status === null ? null : signalNote(a.attempt, core.config.retryDelaysMs, delivery.test, {
        status: a.response_status, headers: parseJson(a.response_headers, {}),
        answeredAt: Date.parse(a.started_at) + a.duration_ms,
      }),
    })),
  };
}

/** Every webhook the log can show, deleted ones too (kept as tombstones while deliveries refer to them). */
export async function listLogWebhooks(core: Core): Promise<{ webhooks: LogWebhook[] }> {
  const rows = await core.db.selectFrom('webhooks').select(['id', 'name', 'deleted_at'])
    .orderBy('name').orderBy('id').execute();
  return { webhooks: rows.map((r) => ({ id: r.id, name: r.name, deleted: r.deleted_at !== null })) };
}

// ---------- redeliver ----------

/**
 * A new delivery of the same event to the same webhook, due now; the original stays in the log unchanged. With
 * `actor`, recorded in the audit log in the same transaction.
 */
export async function redeliver(core: Core, id: string, actor?: Actor): Promise<DeliveryView> {
  const newId = await core.db.transaction().execute(async (trx) => {
    const original = await trx.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst();
    if (!original) throw notFound(`Delivery ${id}`);
    const webhook = await webhookRow(trx, original.webhook_id);
    if (!webhook || webhook.deleted_at !== null) {
      const detail = `The webhook ${original.webhook_id} of this delivery was deleted, so it cannot be redelivered.`;
      throw conflict('webhook_deleted', detail);
    }
    if (webhook.active !== 1) {
      const why = webhook.disabled_reason ? ` (${webhook.disabled_reason.replace(/\.$/, '')})` : '';
      throw conflict('webhook_disabled', `The webhook "${webhook.name}" is disabled${why}. Re-enable it first, then `
        + 'redeliver.');
    }
    // Sent from the event, whole, after the log's copy of the payload was blanked; a gone event leaves nothing.
    const event = await trx.selectFrom('events').select('id').where('id', '=', original.event_id).executeTakeFirst();
    if (!event) throw conflict('event_gone', `The event ${original.event_id} of this delivery is no longer kept.`);
    const queued = await queueDelivery(trx, core, { webhookId: original.webhook_id, eventId: original.event_id,
      eventType: original.event_type, redeliveryOf: original.id });
    await recordAudit(core, actor, { action: 'delivery.redelivered', targetType: 'delivery', targetId: id,
      details: { webhook: original.webhook_id, delivery: queued } }, trx);
    return queued;
  });
  wakeWorkers(core);
  core.log.info({ deliveryId: newId, redeliveryOf: id }, 'redelivery queued');
  return getDeliveryView(core, newId);
}
