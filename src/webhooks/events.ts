// Event derivation (DESIGN.md "Event kinds"): the write listener turns each RecordChange of a host write into
// events, inside the write's transaction, and queues one pending delivery per active webhook subscribed to the
// event (the transactional outbox). Every event is stored once, subscribed or not: the feed (src/feed/) serves them.
import type { Kysely } from 'kysely';
import { isDeepStrictEqual } from 'node:util';
import type { Core, RecordChange } from '../core.js';
import { isLegacyEngine } from '../records/normalize.js';
import { PAID_PAYMENT_STATUSES, type Booking, type Payment } from '../records/schemas.js';
import type { Database } from '../store/tables.js';
import type { EventType } from './catalog.js';
import { splitByFilter } from './filters/apply.js';
import { queueDeliveries, recordEvent } from './outbox.js';
import { tracing } from '../tracing/index.js';
import { recordKey } from './delivery/order.js';
import type { WebhookOrdering } from './tables.js';

type Db = Kysely<Database>;

const PAYMENT_EVENTS: EventType[] = ['booking.payment.completed', 'booking.due.payment.completed'];

/** The product's notion of paid (DESIGN.md "Records"): check-waiting and voucher-waiting are not yet. */
export const isPaidStatus = (status: string): boolean => (PAID_PAYMENT_STATUSES as readonly string[]).includes(status);

/** The event types a change fires, before the "once" check for payments. Deletions fire nothing. */
export function deriveEventTypes(change: RecordChange): EventType[] {
  const { before, after } = change;
  if (after === null) return [];
  switch (change.resource) {
    case 'bookings': {
      const b = after as Booking;
      // Legacy bookings are absent from every API result, so they fire nothing either.
      if (isLegacyEngine(b.engine_version)) return [];
      const prev = before as Booking | null;
      if (prev === null || isLegacyEngine(prev.engine_version)) return ['booking.created'];
      // A real change: a new updated_at alone is not one. A status that became canceled or completed is also told
      // as its own event, which receivers subscribe to instead of reading statuses.
      if (isDeepStrictEqual({ ...prev, updated_at: null }, { ...b, updated_at: null })) return [];
      const moments: EventType[] = [];
      if (b.status !== prev.status && b.status === 'canceled') moments.push('booking.canceled');
      if (b.status !== prev.status && b.status === 'completed') moments.push('booking.completed');
      return ['booking.updated', ...moments];
    }
    case 'payments': {
      const p = after as Payment;
      const prev = before as Payment | null;
      // It becomes paid: a new payment already paid, or one moving from an unpaid status to a paid one.
      if (!isPaidStatus(p.status) || (prev !== null && isPaidStatus(prev.status))) return [];
      return [p.is_due_payment ? 'booking.due.payment.completed' : 'booking.payment.completed'];
    }
    case 'customers': return before === null ? ['customer.created'] : [];
    case 'enquiries': return before === null ? ['enquiry.created'] : [];
    case 'reviews': return before === null ? ['review.created'] : [];
    default: return [];
  }
}

/**
 * What an update changed, as Stripe's `previous_attributes`: each top-level field whose value changed, with its value
 * before; a changed object (the customer, an address) recurses to the keys that changed, an array is given whole.
 */
export function previousAttributes(before: unknown, after: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const was = before as Record<string, unknown>;
  const now = after as Record<string, unknown>;
  for (const key of new Set([...Object.keys(was), ...Object.keys(now)])) {
    const old = was[key] === undefined ? null : was[key];
    if (isDeepStrictEqual(old, now[key] === undefined ? null : now[key])) continue;
    out[key] = isPlainObject(old) && isPlainObject(now[key]) ? previousAttributes(old, now[key]) : old;
  }
  return out;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

interface Subscriber {
  id: string;
  events: string[];
  filter: string | null;
  ordering: WebhookOrdering;
}

async function activeSubscribers(db: Db): Promise<Subscriber[]> {
  const rows = await db.selectFrom('webhooks').select(['id', 'events', 'filter', 'ordering'])
    .where('active', '=', 1).where('deleted_at', 'is', null).orderBy('id').execute();
  return rows.map((r) => ({
    id: r.id, events: JSON.parse(r.events) as string[], filter: r.filter ?? null, ordering: r.ordering,
  }));
}

/** A payment completes once: a paid → refunded → paid payment does not fire again. */
async function paymentAlreadyCompleted(db: Db, paymentId: number): Promise<boolean> {
  const row = await db.selectFrom('events').select('id')
    .where('resource', '=', 'payments').where('record_id', '=', paymentId).where('type', 'in', PAYMENT_EVENTS)
    .limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The write listener (registered by installWebhooks). Runs inside the host write's transaction. */
export async function recordEventsForChange(trx: Db, change: RecordChange, core: Core): Promise<number> {
  const types = deriveEventTypes(change);
  if (types.length === 0) return 0;
  const webhooks = await activeSubscribers(trx);
  // Events of an update of an existing record carry what it changed.
  const previous = change.before !== null && change.resource === 'bookings'
    ? previousAttributes(change.before, change.after) : null;
  let queued = 0;
  for (const type of types) {
    if (change.resource === 'payments' && (await paymentAlreadyCompleted(trx, change.id))) continue;
    const subscribed = webhooks.filter((w) => w.events.includes(type));
    const previousAttributes = type === 'booking.created' ? null : previous;
    // A webhook whose filter skips the event gets no delivery; the event is kept and says who skipped it.
    const envelope = { data: change.after, previous_attributes: previousAttributes };
    const { send, skipped } = splitByFilter(subscribed, envelope);
    const key = recordKey(change.resource, change.id);
    const insert = async (): Promise<{ eventId: string; ids: string[] }> => {
      const eventId = await recordEvent(trx, core, {
        type, resource: change.resource, recordId: change.id, data: change.after, previousAttributes,
        skippedByFilter: skipped.map((w) => w.id),
      });
      const deliveries = send.map((w) => ({
        webhookId: w.id, eventId, eventType: type, orderKey: w.ordering === 'record' ? key : null,
      }));
      return { eventId, ids: await queueDeliveries(trx, core, deliveries) };
    };
    const traced = tracing();
    queued += (traced ? await outboxSpan(traced, type, change, insert) : await insert()).ids.length;
  }
  return queued;
}

/**
 * An event no host write causes (customer.erased, recorded by an erasure): stored, and queued to each active webhook
 * subscribed to its type whose filter lets it through, in the caller's transaction. Returns the event's id.
 */
export async function recordOwnEvent(trx: Db, core: Core, event: {
  type: EventType; resource: string; recordId: number; data: unknown;
}): Promise<string> {
  const subscribed = (await activeSubscribers(trx)).filter((w) => w.events.includes(event.type));
  const { send, skipped } = splitByFilter(subscribed, { data: event.data, previous_attributes: null });
  const eventId = await recordEvent(trx, core, {
    type: event.type, resource: event.resource, recordId: event.recordId, data: event.data,
    skippedByFilter: skipped.map((w) => w.id),
  });
  const key = recordKey(event.resource, event.recordId);
  await queueDeliveries(trx, core, send.map((w) => ({
    webhookId: w.id, eventId, eventType: event.type, orderKey: w.ordering === 'record' ? key : null,
  })));
  return eventId;
}

/** The outbox insert as a span: the event stores its context, so the deliveries' attempts become its children. */
function outboxSpan(
  traced: NonNullable<ReturnType<typeof tracing>>, type: string, change: RecordChange,
  insert: () => Promise<{ eventId: string; ids: string[] }>,
): Promise<{ eventId: string; ids: string[] }> {
  const attributes = {
    'waypost.event.type': type, 'waypost.resource': change.resource, 'waypost.record.id': change.id,
  };
  return traced.span('waypost.outbox.insert', { attributes }, async (span) => {
    const done = await insert();
    span.setAttributes({ 'waypost.event.id': done.eventId, 'waypost.deliveries': done.ids.length });
    return done;
  });
}
