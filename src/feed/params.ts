// The feed's request, checked and turned into id bounds: event ids begin with their time in milliseconds
// (src/ids.ts), so `since`, `until`, the retention floor and `after` are all ranges of the id order the indexes keep.
import { AppError, invalidParameter } from '../errors.js';
import { EVENT_TYPE_NAMES } from '../webhooks/catalog.js';
import { eventIdAt } from '../webhooks/retention.js';

const DAY_MS = 86_400_000;
export const EVENT_ID_PATTERN = '^evt_[0-9a-f]{28}$';
const EVENT_ID = new RegExp(EVENT_ID_PATTERN);

/** `record=booking:1042`: the singular names the feed takes, and the table each one's events name. */
export const RECORD_KINDS: Record<string, string> = {
  booking: 'bookings', payment: 'payments', customer: 'customers', enquiry: 'enquiries', review: 'reviews',
};

export interface FeedQuery {
  after?: string;
  types?: string;
  record?: string;
  since?: string;
  until?: string;
  perpage?: number;
  order?: 'asc' | 'desc';
  wait?: number;
  consumer?: string;
}

/** What a page reads: ids strictly between `above` and `below`, of these types and this record. */
export interface FeedFilter {
  types: string[] | null; // null: every type
  record: { resource: string; id: number } | null;
  above: string;
  below: string | null;
  order: 'asc' | 'desc';
}

/**
 * `booking.*,customer.created` → the types it names, in catalog order; null when that is every type. `parameter`:
 * the name a 400 gives (the console's API calls it `type`).
 */
export function parseTypes(raw: string | undefined, parameter = 'types'): string[] | null {
  if (raw === undefined) return null;
  const wanted = new Set<string>();
  for (const piece of raw.split(',').map((p) => p.trim())) {
    const prefix = piece === '*' ? '' : piece.endsWith('.*') ? piece.slice(0, -1) : null;
    const matching = prefix === null
      ? EVENT_TYPE_NAMES.filter((t) => t === piece)
      : EVENT_TYPE_NAMES.filter((t) => t.startsWith(prefix));
    if (matching.length === 0) {
      throw invalidParameter(parameter, `"${piece.slice(0, 80)}" matches no event type (types are ${
        EVENT_TYPE_NAMES.join(', ')}; a pattern may end in .*, e.g. booking.*)`);
    }
    for (const t of matching) wanted.add(t);
  }
  return wanted.size === EVENT_TYPE_NAMES.length ? null : EVENT_TYPE_NAMES.filter((t) => wanted.has(t));
}

export function parseRecord(raw: string | undefined): FeedFilter['record'] {
  if (raw === undefined) return null;
  const m = /^([a-z]+):([1-9][0-9]{0,15})$/.exec(raw);
  const resource = m ? RECORD_KINDS[m[1]] : undefined;
  if (!m || !resource || !Number.isSafeInteger(Number(m[2]))) {
    throw invalidParameter('record', `expected KIND:ID with KIND one of ${Object.keys(RECORD_KINDS).join(', ')} `
      + '(e.g. booking:1042)');
  }
  return { resource, id: Number(m[2]) };
}

/** The `record` parameter naming an event's record (`booking:1042`); null for an event about no record. */
export function recordParam(resource: string | null, id: number | null): string | null {
  const kind = Object.entries(RECORD_KINDS).find(([, table]) => table === resource)?.[0];
  return kind && id !== null ? `${kind}:${id}` : null;
}

/** The opaque cursor of a `next` link: the order it was made for and the last event id handed out. */
export function encodeCursor(order: 'asc' | 'desc', id: string): string {
  return Buffer.from(JSON.stringify(['evt', order, id])).toString('base64url');
}

/** `after`: an event id, or a cursor from a Link header (which must be for the same order). */
export function parseAfter(raw: string, order: 'asc' | 'desc'): string {
  if (EVENT_ID.test(raw)) return raw;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  const bad = () => invalidParameter('after', 'not an event id (evt_…) or a cursor from a Link header');
  if (!Array.isArray(parsed) || parsed.length !== 3 || parsed[0] !== 'evt') throw bad();
  const [, made, id] = parsed as unknown[];
  if ((made !== 'asc' && made !== 'desc') || typeof id !== 'string' || !EVENT_ID.test(id)) throw bad();
  if (made !== order) {
    throw invalidParameter('after', `this cursor was made for order=${made}; keep the same order while paging`);
  }
  return id;
}

/** The time an event id was made at (its first 12 hex digits). */
export const timeOfEventId = (id: string): number => parseInt(id.slice(4, 16), 16);

/** The oldest id the feed still keeps (WAYPOST_EVENT_RETENTION_DAYS). */
export const retentionFloor = (now: number, days: number): string => eventIdAt(now - days * DAY_MS);

/** 410: a position older than the retention can no longer be resumed exactly. */
export function expired(parameter: string, id: string, days: number): AppError {
  return new AppError(410, 'cursor_expired', 'Gone',
    `${parameter}: events before ${new Date(timeOfEventId(id) + 1).toISOString().slice(0, 19)}Z are no longer kept `
    + `(the feed keeps ${days} days): start again from the oldest kept event (leave out after) or with since`,
    { parameter });
}

/** The filter of a request, `after` being the event to start after (from the query or a consumer's position). */
export function feedFilter(q: FeedQuery, after: string | null, now: number, retentionDays: number): FeedFilter {
  const order = q.order ?? 'asc';
  const floor = retentionFloor(now, retentionDays);
  if (after !== null && after < floor) {
    throw expired(q.after !== undefined ? 'after' : 'consumer', after, retentionDays);
  }
  const since = q.since === undefined ? floor : eventIdAt(Date.parse(q.since));
  const until = q.until === undefined ? null : eventIdAt(Date.parse(q.until) + 1); // until is inclusive
  let above = since > floor ? since : floor;
  let below = until;
  if (after !== null && order === 'asc' && after > above) above = after;
  if (after !== null && order === 'desc' && (below === null || after < below)) below = after;
  return { types: parseTypes(q.types), record: parseRecord(q.record), above, below, order };
}
