// The transactional outbox: events and pending deliveries are inserted with the caller's transaction, so they
// commit (or roll back) with the write that caused them. Workers are woken after commit: in-process through the
// bus, across processes through PostgreSQL NOTIFY (which PostgreSQL delivers at commit).
import type { Kysely } from 'kysely';
import type { Core } from '../core.js';
import { newId } from '../ids.js';
import { lockNames } from '../store/locks.js';
import { notifyAtCommit } from '../store/notifications.js';
import type { Database } from '../store/tables.js';
import { announceQueued } from './delivery/queue/index.js';
import { tracing } from '../tracing/index.js';
import { placeInChains, type Chain } from './delivery/order.js';

/** NOTIFY'd at the commit of every transaction that recorded an event: the feed's long polls wake on it. */
export const EVENTS_CHANNEL = 'waypost_events';
/**
 * Held from an event's id to its transaction's end (PostgreSQL; SQLite's writes are serial already): event ids are
 * then in commit order, so a feed reader that saw event N never sees an event before N commit later.
 */
const EVENT_ORDER_LOCK = 'events.order';

type Db = Kysely<Database>;

export interface NewEvent {
  type: string;
  resource: string | null;
  recordId: number | null;
  data: unknown; // the record exactly as the API shows it
  /** `*.updated` events: the fields that changed, with their values before the write (the envelope's key). */
  previousAttributes?: Record<string, unknown> | null;
  test?: boolean;
  /** The webhooks whose payload filter skipped the event (they get no delivery). */
  skippedByFilter?: string[];
}

/** Inserts an event row; returns its id (`evt_…`). A real event (not a test's) is announced to the feed. */
export async function recordEvent(db: Db, core: Core, event: NewEvent): Promise<string> {
  if (!event.test) {
    await lockNames(db, [EVENT_ORDER_LOCK]);
    await notifyAtCommit(db, EVENTS_CHANNEL);
  }
  const now = core.clock.now();
  const id = newId('evt', now);
  await db.insertInto('events').values({
    id,
    type: event.type,
    resource: event.resource,
    record_id: event.recordId,
    data: JSON.stringify(event.data),
    previous_attributes: event.previousAttributes ? JSON.stringify(event.previousAttributes) : null,
    test: event.test ? 1 : 0,
    skipped_by_filter: event.skippedByFilter?.length ? JSON.stringify(event.skippedByFilter) : null,
    created_at: new Date(now).toISOString(),
    // Only when tracing is on and a span is active (the outbox insert's): the statement is unchanged otherwise.
    ...traceContext(),
  }).execute();
  return id;
}

function traceContext(): { traceparent: string } | Record<string, never> {
  const traceparent = tracing()?.activeTraceparent();
  return traceparent ? { traceparent } : {};
}

export interface NewDelivery {
  webhookId: string;
  eventId: string;
  eventType: string;
  redeliveryOf?: string | null;
  /** A webhook with `ordering: record`: the event's record (delivery/order.ts); it waits for that record's last. */
  orderKey?: string | null;
}

/** Inserts a pending delivery due now (the first attempt); returns its id (`dlv_…`). wakeWorkers() after commit. */
export async function queueDelivery(db: Db, core: Core, delivery: NewDelivery): Promise<string> {
  const [id] = await queueDeliveries(db, core, [delivery]);
  return id;
}

/** Inserts pending deliveries due now with one statement (one event to all its webhooks); returns their ids. */
export async function queueDeliveries(db: Db, core: Core, deliveries: NewDelivery[]): Promise<string[]> {
  if (deliveries.length === 0) return [];
  const now = core.clock.now();
  const iso = new Date(now).toISOString();
  const waitsFor = await waitingFor(db, deliveries);
  const rows = deliveries.map((delivery, i) => ({
    id: newId('dlv', now),
    webhook_id: delivery.webhookId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: 'pending' as const,
    attempts: 0,
    next_attempt_at: waitsFor?.[i] ? null : now,
    lease_owner: null,
    lease_until: null,
    last_status: null,
    last_error: null,
    cancel_reason: null,
    redelivery_of: delivery.redeliveryOf ?? null,
    order_key: delivery.orderKey ?? null,
    waits_for: waitsFor?.[i] ?? null,
    created_at: iso,
    updated_at: iso,
    completed_at: null,
  }));
  await db.insertInto('deliveries').values(rows).execute();
  await announceQueued(db, core);
  return rows.map((r) => r.id);
}

/** Ordered deliveries' places in their records' chains; null (nothing read, nothing locked) when none is ordered. */
async function waitingFor(db: Db, deliveries: NewDelivery[]): Promise<Array<string | null> | null> {
  if (!deliveries.some((d) => d.orderKey)) return null;
  const ordered = deliveries.flatMap((d, i) => (d.orderKey ? [{ i, webhookId: d.webhookId, orderKey: d.orderKey }]
    : []));
  const places = await placeInChains(db, ordered satisfies Chain[]);
  const out: Array<string | null> = deliveries.map(() => null);
  ordered.forEach((o, n) => { out[o.i] = places[n]; });
  return out;
}

/** After commit: wakes this process's worker (other processes are woken by NOTIFY). */
export function wakeWorkers(core: Core): void {
  core.bus.emit('deliveries.queued');
}
