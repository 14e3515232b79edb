// The delivery log's one search box (`q`): an id as before (dlv_…, evt_…, a record id or "booking 1042"), or what a
// person remembers: a traveller's e-mail, name or phone, a trip's title. Text is resolved through the records' own
// search (the REST API's `search`, core.findRecordIds) to the newest RECORDS_PER_KIND customers, bookings and trips
// holding it, plus those bookings' payments; the log then lists the deliveries of events about those records through
// events(resource, record_id) and deliveries(event_id). So a search costs what that bounded set costs, however long
// the log, and no personal data is copied into another index (erasing a traveller's records is enough).
import type { Core } from '../core.js';
import { invalidParameter } from '../errors.js';
import { RESOURCES } from '../records/schemas.js';

/** Records of each kind a text search reaches at most: the newest ones, so the first pages are complete. */
export const RECORDS_PER_KIND = 100;
/** Payments of the found bookings read at most (a booking has a few: a deposit, instalments, refunds). */
const PAYMENTS_AT_MOST = 1_000;
/** The kinds whose search text holds an e-mail, a name or a trip title (records/rows.ts `searchTextOf`). */
const SEARCHED = ['customers', 'bookings', 'trips'] as const;

const SINGULAR: Record<string, string> = {
  trips: 'trip', customers: 'customer', bookings: 'booking', payments: 'payment', enquiries: 'enquiry',
  reviews: 'review',
};

/** What the search box's text asks for. */
export type LogSearch =
  | { delivery_id: string }
  | { event_id: string }
  | { record_id: string; resource?: string }
  | { text: string };

/** Reads the search box: an id in any of the forms the log shows, else text of 3 to 200 characters. */
export function parseLogSearch(q: string): LogSearch | null {
  const text = q.trim();
  if (text === '') return null;
  if (/^dlv_\S+$/.test(text)) return { delivery_id: text };
  if (/^evt_\S+$/.test(text)) return { event_id: text };
  if (/^#?\d{1,16}$/.test(text)) return { record_id: text.replace('#', '') };
  const named = /^([a-z]+)\s*#?\s*(\d{1,16})$/i.exec(text);
  const word = named?.[1].toLowerCase();
  const resource = RESOURCES.find((r) => r === word || SINGULAR[r] === word);
  if (named && resource) return { resource, record_id: named[2] };
  if (text.length < 3 || text.length > 200) {
    throw invalidParameter('q', 'search for an e-mail, name or trip of 3 to 200 characters, or an id');
  }
  return { text: text.toLowerCase() };
}

/** The records a text search reached, by kind, and whether more of some kind hold it than were reached. */
export interface FoundRecords {
  records: Array<{ resource: string; ids: number[] }>;
  more: boolean;
}

export async function findRecords(core: Core, text: string): Promise<FoundRecords> {
  const found = await Promise.all(SEARCHED.map(async (resource) => ({
    resource, ...await core.findRecordIds(resource, text, RECORDS_PER_KIND),
  })));
  const bookings = found.find((f) => f.resource === 'bookings')!.ids;
  // A payment's events (booking.payment.*) concern the payment: found through its booking (payments_booking_created).
  const payments = bookings.length === 0 ? [] : await core.db.selectFrom('payments').select('id')
    .where('booking_id', 'in', bookings).limit(PAYMENTS_AT_MOST).execute();
  const records = [...found, { resource: 'payments', ids: payments.map((p) => Number(p.id)) }]
    .filter((r) => r.ids.length > 0).map(({ resource, ids }) => ({ resource, ids }));
  return { records, more: found.some((f) => f.more) };
}
