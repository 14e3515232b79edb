// Events missed while a webhook was off (issue 35): every event is stored (the feed), so a recover can send the
// events of the webhook's types committed inside one of its off periods (off-periods.ts) that passed its current
// filter and have no delivery to it yet, each as a new first delivery (ordered webhooks: in its record's chain).
// Read a page at a time: one index walk per subscribed type on events (type, id), each stopped at the page size, and
// merged in id order (commit order) up to the first type whose page was full, so a page never skips an event.
// Bounded by the feed's retention: events older than WAYPOST_EVENT_RETENTION_DAYS are gone and cannot be sent.
import type { Kysely } from 'kysely';
import type { Database } from '../../store/tables.js';
import { matches } from '../filters/language.js';
import { compileStored } from '../filters/validate.js';
import { recordKey } from '../delivery/order.js';
import { offPeriodsSince } from '../off-periods.js';
import { eventIdAt } from '../retention.js';
import type { NewDelivery } from '../outbox.js';
import type { WebhookOrdering } from '../tables.js';

type Db = Kysely<Database>;

/**
 * An event about to be delivered when the webhook came back (its id taken, its transaction not yet committed) may get
 * its id just after the re-enable's time and still have read the webhook as off: the range reaches this far past it.
 * An event there that was delivered, or skipped by the filter, is not sent.
 */
export const ENABLE_MARGIN_MS = 5_000;

const idAt = eventIdAt; // event ids begin with their time: a time's smallest id bounds a range
const END = 'evt_~'; // after every id: an off period still open

export interface MissedScope {
  webhookId: string;
  types: string[];
  filter: string | null;
  ordering: WebhookOrdering;
  /** Event id ranges [from, to), in order and apart: the off periods since the recover's time. */
  ranges: Array<{ from: string; to: string }>;
}

/** What a recover since `since` may send the webhook; no ranges when it was never off since then. */
export async function missedScope(db: Db, webhookId: string, since: string): Promise<MissedScope> {
  const webhook = await db.selectFrom('webhooks').select(['events', 'filter', 'ordering'])
    .where('id', '=', webhookId).executeTakeFirstOrThrow();
  const ranges: MissedScope['ranges'] = [];
  for (const p of await offPeriodsSince(db, webhookId, since)) {
    const from = idAt(Math.max(Date.parse(p.off_at), Date.parse(since)));
    const to = p.on_at === null ? END : idAt(Date.parse(p.on_at) + ENABLE_MARGIN_MS);
    const last = ranges[ranges.length - 1];
    if (last && from <= last.to) last.to = to > last.to ? to : last.to; // overlapping periods are one
    else if (from < to) ranges.push({ from, to });
  }
  return {
    webhookId, types: JSON.parse(webhook.events) as string[], filter: webhook.filter ?? null,
    ordering: webhook.ordering, ranges,
  };
}

/** Where a walk over the scope's ranges is: the range, and the last event id read in it ('' for none). */
export interface MissedCursor {
  range: number;
  after: string;
}

export const eventsOfTypeBetween = (db: Db, type: string, from: string, to: string, after: string, limit: number) =>
  db.selectFrom('events')
    .select(['id', 'type', 'resource', 'record_id', 'data', 'previous_attributes', 'skipped_by_filter'])
    .where('type', '=', type).where('id', '>=', from).where('id', '<', to).where('id', '>', after)
    .where('test', '=', 0)
    .orderBy('id').limit(limit);

/** Which of these events the webhook has a delivery of (looked up by deliveries (event_id)). */
export const deliveredOf = (db: Db, webhookId: string, eventIds: string[]) => db.selectFrom('deliveries')
  .select('event_id').where('event_id', 'in', eventIds).where('webhook_id', '=', webhookId);

/**
 * The next page of missed events (about `limit` read per type) from the cursor, as deliveries to queue, and the
 * cursor after it (null: the walk is over). A page may queue none (all delivered or filtered out) and not be the last.
 */
export async function missedPage(db: Db, scope: MissedScope, cursor: MissedCursor, limit: number):
Promise<{ deliveries: NewDelivery[]; next: MissedCursor | null }> {
  const range = scope.ranges[cursor.range];
  if (!range || scope.types.length === 0) return { deliveries: [], next: null };
  const perType = await Promise.all(scope.types.map((type) =>
    eventsOfTypeBetween(db, type, range.from, range.to, cursor.after, limit).execute()));
  // Up to the smallest last id of a full page: beyond it another type may have events not read yet.
  const cut = perType.filter((rows) => rows.length === limit).map((rows) => rows[rows.length - 1].id)
    .reduce<string | null>((min, id) => (min === null || id < min ? id : min), null);
  const events = perType.flat().filter((e) => cut === null || e.id <= cut).sort((a, b) => (a.id < b.id ? -1 : 1));
  const next = cut !== null ? { range: cursor.range, after: cut }
    : cursor.range + 1 < scope.ranges.length ? { range: cursor.range + 1, after: '' } : null;
  if (events.length === 0) return { deliveries: [], next };
  const delivered = new Set((await deliveredOf(db, scope.webhookId, events.map((e) => e.id)).execute())
    .map((d) => d.event_id));
  const filter = scope.filter === null ? null : compileStored(scope.filter);
  const deliveries = events.filter((e) => !delivered.has(e.id)
    && !(e.skipped_by_filter && (JSON.parse(e.skipped_by_filter) as string[]).includes(scope.webhookId))
    && (filter === null || matches(filter, {
      data: JSON.parse(e.data) as unknown,
      previous_attributes: e.previous_attributes ? JSON.parse(e.previous_attributes) as Record<string, unknown> : null,
    })))
    .map((e) => ({
      webhookId: scope.webhookId, eventId: e.id, eventType: e.type,
      orderKey: scope.ordering === 'record' ? recordKey(e.resource, e.record_id) : null,
    }));
  return { deliveries, next };
}

/** Events read per type in one counting statement. */
export const MISSED_COUNT_PAGE = 1_000;

export interface MissedCountOptions {
  stopping?: () => boolean;
  /** The count so far, after each page that was not the last. */
  onPage?: (counted: number) => Promise<void>;
  /** Stop counting at this many (the answer is then "at least"). */
  cap?: number;
}

/** How many missed events a recover would send now, counted a page at a time with a yield between pages; null when
 *  `stopping` ended it. */
export async function countMissed(db: Db, scope: MissedScope, options: MissedCountOptions = {}):
Promise<number | null> {
  let n = 0;
  let cursor: MissedCursor | null = { range: 0, after: '' };
  while (cursor) {
    if (options.stopping?.()) return null;
    const page = await missedPage(db, scope, cursor, MISSED_COUNT_PAGE);
    n += page.deliveries.length;
    cursor = page.next;
    if (options.cap !== undefined && n >= options.cap) return n;
    if (cursor) {
      await options.onPage?.(n);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return n;
}
