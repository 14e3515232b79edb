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
    created_at: new Date(now).toISOString(),
  }).execute();
  return id;
}

export interface NewDelivery {
  webhookId: string;
  eventId: string;
  eventType: string;
  redeliveryOf?: string | null;
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
  const rows = deliveries.map((delivery) => ({
    id: newId('dlv', now),
    webhook_id: delivery.webhookId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: 'pending' as const,
    attempts: 0,
    next_attempt_at: now,
    lease_owner: null,
    lease_until: null,
    last_status: null,
    last_error: null,
    cancel_reason: null,
    redelivery_of: delivery.redeliveryOf ?? null,
    created_at: iso,
    updated_at: iso,
    completed_at: null,
  }));
  await db.insertInto('deliveries').values(rows).execute();
  await announceQueued(db, core);
  return rows.map((r) => r.id);
}

/** After commit: wakes this process's worker (other processes are woken by NOTIFY). */
export function wakeWorkers(core: Core): void {
  core.bus.emit('deliveries.queued');
}
