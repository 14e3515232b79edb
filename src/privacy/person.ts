// Everything Waypost holds about one person, found by index from their e-mail or customer id: their customer
// records, the bookings that name them (by customer id or e-mail), those bookings' payments, their enquiries (by
// e-mail) and reviews (by their author's e-mail, or name), then the stored events of those records and the
// deliveries of those events.
// Each step reads an index: an erasure or an export costs what the person has, not what the site has.
import type { Kysely } from 'kysely';
import { emailSha256, type StoredRecords } from '../records/normalize.js';
import type { Database } from '../store/tables.js';
import { carriesPersonalData } from './anonymise.js';
import { chunks } from './chunks.js';
import { lastChange, pastRecords, type PastRecord } from './past-subjects.js';
import type { ReceivedBy } from './jobs.js';

type Db = Kysely<Database>;

export interface PersonQuery {
  email: string | null; // lower-cased
  customerId: number | null;
}

export interface Person {
  customers: StoredRecords['customers'][];
  bookings: StoredRecords['bookings'][];
  payments: StoredRecords['payments'][];
  enquiries: StoredRecords['enquiries'][];
  reviews: StoredRecords['reviews'][];
  /** Records deleted, or naming someone else now, and the range of their events that was theirs (past-subjects.ts). */
  past: PastRecord[];
  /** Lower-cased strings that identify them (e-mails, phones, full names): what the last net looks for. */
  identifiers: string[];
}

const parsed = <T>(rows: Array<{ data: string }>): T[] => rows.map((r) => JSON.parse(r.data) as T);

export async function findPerson(db: Db, q: PersonQuery): Promise<Person> {
  const customers = parsed<StoredRecords['customers']>(await db.selectFrom('customers').select('data')
    .where((eb) => eb.or([
      ...(q.email ? [eb('email', '=', q.email)] : []),
      ...(q.customerId !== null ? [eb('id', '=', q.customerId)] : []),
    ])).orderBy('id').execute());
  const emails = [...new Set([...(q.email ? [q.email] : []), ...customers.map((c) => c.email.toLowerCase())])]
    .filter((e) => e !== '');
  const customerIds = customers.map((c) => c.id);
  if (q.customerId !== null && !customerIds.includes(q.customerId)) customerIds.push(q.customerId);

  const bookings = new Map<number, StoredRecords['bookings']>();
  for (const ids of chunks(customerIds)) {
    for (const b of parsed<StoredRecords['bookings']>(await db.selectFrom('bookings').select('data')
      .where('visible', 'in', [0, 1]).where('customer_id', 'in', ids).execute())) bookings.set(b.id, b);
  }
  for (const list of chunks(emails)) {
    for (const b of parsed<StoredRecords['bookings']>(await db.selectFrom('bookings').select('data')
      .where('visible', 'in', [0, 1]).where('customer_email', 'in', list).execute())) bookings.set(b.id, b);
  }
  const payments: StoredRecords['payments'][] = [];
  for (const ids of chunks([...bookings.keys()])) {
    payments.push(...parsed<StoredRecords['payments']>(await db.selectFrom('payments').select('data')
      .where('booking_id', 'in', ids).execute()));
  }
  const enquiries: StoredRecords['enquiries'][] = [];
  for (const list of chunks(emails)) {
    enquiries.push(...parsed<StoredRecords['enquiries']>(await db.selectFrom('enquiries').select('data')
      .where('email', 'in', list).execute()));
  }
  // Reviews by their author's e-mail where the host sent one, else by one of the person's full names, those of their
  // records and those they signed reviews with (a review that names another e-mail is another person's).
  const reviews = new Map<number, StoredRecords['reviews']>();
  for (const list of chunks(emails.map(emailSha256))) {
    for (const r of parsed<StoredRecords['reviews']>(await db.selectFrom('reviews').select('data')
      .where('author_email_sha256', 'in', list).execute())) reviews.set(r.id, r);
  }
  // Whom their past records named (a deleted customer's name, say): their names and phones are the person's too.
  const pastByKeys = await pastRecords(db, emails, [], customerIds);
  const formerly = await pastPeople(db, pastByKeys, emails, customerIds);
  const spelt = [...new Set([...fullNames(customers, [...bookings.values()], enquiries, [...reviews.values()]),
    ...formerly.names.filter((n) => n.includes(' '))])];
  const names = [...new Set(spelt.map((n) => n.toLowerCase()))];
  // Reviews stored before migration 0030 were lower-cased by SQL's lower(), which leaves "É" as it is on SQLite (and
  // on PostgreSQL in the C locale): their names are looked for as that spells them too.
  const sqlLowered = spelt.map((n) => n.replace(/[A-Z]+/g, (s) => s.toLowerCase()));
  for (const list of chunks([...new Set([...names, ...sqlLowered])])) {
    for (const r of parsed<StoredRecords['reviews']>(await db.selectFrom('reviews').select('data')
      .where('author', 'in', list).where('author_email_sha256', 'is', null).execute())) reviews.set(r.id, r);
  }
  const phones = [...customers.map((c) => c.phone), ...[...bookings.values()].map((b) => b.customer?.phone),
    ...enquiries.map((e) => e.phone), ...formerly.phones];
  const texts = [...emails, ...names, ...phones.map((p) => p?.trim().toLowerCase() ?? '')];
  const identifiers = [...new Set(texts)]
    .filter((s) => s.length >= 5); // shorter strings would erase other text too
  const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;
  return {
    customers, bookings: [...bookings.values()].sort(byId), payments: payments.sort(byId),
    enquiries: enquiries.sort(byId), reviews: [...reviews.values()].sort(byId),
    // Links by e-mail or customer id were read above; those by a review author's name only now, with the names.
    past: [...new Map([...pastByKeys, ...await pastRecords(db, [], names, [])].map((r) => [r.link, r])).values()],
    identifiers,
  };
}

type Json = Record<string, unknown>;
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/**
 * The names and phones a past record gave the person: the first event of each range is the record as it came to
 * name them (created, or changed to them), read only where it names them by e-mail or customer id.
 */
async function pastPeople(db: Db, past: readonly PastRecord[], emails: readonly string[],
  customerIds: readonly number[]): Promise<{ names: string[]; phones: string[] }> {
  const names: string[] = [];
  const phones: string[] = [];
  for (const r of past) {
    const first = await db.selectFrom('events').select('data').where('resource', '=', r.resource)
      .where('record_id', '=', r.id).where('id', '>=', r.fromEventId).where('id', '<', r.untilEventId)
      .orderBy('id').limit(1).executeTakeFirst();
    const data = first ? JSON.parse(first.data) as Json : null;
    const who = (r.resource === 'bookings' ? data?.customer : data) as Json | null | undefined;
    if (!who || typeof who !== 'object') continue;
    const email = text(who.email)?.toLowerCase();
    const theirs = (email !== undefined && emails.includes(email))
      || (r.resource !== 'enquiries' && customerIds.includes(Number(r.resource === 'customers' ? r.id : who.id)));
    if (!theirs) continue;
    const name = r.resource === 'enquiries' ? text(who.full_name)
      : [text(who.first_name), text(who.last_name)].filter(Boolean).join(' ');
    if (name) names.push(name);
    const phone = text(who.phone);
    if (phone) phones.push(phone);
  }
  return { names, phones };
}

/** The person's full names ("first last"), as their records spell them. */
function fullNames(customers: StoredRecords['customers'][], bookings: StoredRecords['bookings'][],
  enquiries: StoredRecords['enquiries'][], reviews: StoredRecords['reviews'][]): string[] {
  const people = [...customers, ...bookings.flatMap((b) => (b.customer ? [b.customer] : []))];
  const names = [...people.map((p) => [p.first_name, p.last_name].filter(Boolean).join(' ')),
    ...enquiries.map((e) => e.full_name), ...reviews.map((r) => r.author_name)];
  return [...new Set(names.map((n) => n.trim()))]
    .filter((n) => n.includes(' ')); // a first name alone is no one's in particular
}

/** The (resource, ids) whose stored events carry the person's data. */
export function recordsWithPersonalData(p: Person): Array<{ resource: string; ids: number[] }> {
  const all = [
    { resource: 'customers', ids: p.customers.map((r) => r.id) },
    { resource: 'bookings', ids: p.bookings.map((r) => r.id) },
    { resource: 'enquiries', ids: p.enquiries.map((r) => r.id) },
    { resource: 'reviews', ids: p.reviews.map((r) => r.id) },
  ];
  return all.filter((r) => r.ids.length > 0 && carriesPersonalData(r.resource));
}

export interface PersonEvent {
  id: string;
  type: string;
  resource: string;
  created_at: string;
}

/**
 * The stored events of the person's records (events_record_id index): of a record that named someone else before,
 * those since the change; and those of their past records' ranges; oldest first. `records` instead: all the events
 * of those records only.
 */
export async function personEvents(db: Db, p: Person, records?: Array<{ resource: string; ids: number[] }>)
  : Promise<PersonEvent[]> {
  const out = new Map<string, PersonEvent>();
  const columns = ['id', 'type', 'resource', 'created_at'] as const;
  type Row = { id: string; type: string; resource: string | null; created_at: string };
  const add = (resource: string, rows: Row[]) => {
    for (const r of rows) out.set(r.id, { ...r, resource: r.resource ?? resource });
  };
  const of = (resource: string) => db.selectFrom('events').select(columns).where('resource', '=', resource);
  for (const { resource, ids } of records ?? recordsWithPersonalData(p)) {
    const since = records ? new Map<number, string>() : await lastChange(db, resource, ids);
    for (const part of chunks(ids.filter((id) => !since.has(id)))) {
      add(resource, await of(resource).where('record_id', 'in', part).execute());
    }
    for (const [id, from] of since) {
      add(resource, await of(resource).where('record_id', '=', id).where('id', '>=', from).execute());
    }
  }
  for (const r of records ? [] : p.past) {
    add(r.resource, await of(r.resource).where('record_id', '=', r.id).where('id', '>=', r.fromEventId)
      .where('id', '<', r.untilEventId).execute());
  }
  return [...out.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export interface PersonDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  created_at: string;
  completed_at: string | null;
}

/** The deliveries of those events (deliveries_event index). */
export async function personDeliveries(db: Db, events: readonly PersonEvent[]): Promise<PersonDelivery[]> {
  const out: PersonDelivery[] = [];
  for (const part of chunks(events.map((e) => e.id))) {
    out.push(...await db.selectFrom('deliveries')
      .select(['id', 'webhook_id', 'event_id', 'event_type', 'status', 'attempts', 'created_at', 'completed_at'])
      .where('event_id', 'in', part).execute());
  }
  return out.map((d) => ({ ...d, attempts: Number(d.attempts) }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The webhooks whose receivers were sent the person's data (a delivery with at least one attempt). */
export async function receivedBy(db: Db, deliveries: readonly PersonDelivery[]): Promise<ReceivedBy[]> {
  const sent = new Map<string, number>();
  for (const d of deliveries) if (d.attempts > 0) sent.set(d.webhook_id, (sent.get(d.webhook_id) ?? 0) + 1);
  if (sent.size === 0) return [];
  const rows = await db.selectFrom('webhooks').select(['id', 'name', 'url', 'deleted_at'])
    .where('id', 'in', [...sent.keys()]).orderBy('id').execute();
  return rows.map((w) => ({
    id: w.id, name: w.name, url: w.url, deliveries: sent.get(w.id) ?? 0, deleted: w.deleted_at !== null,
  }));
}
