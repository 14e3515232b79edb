// Whose a record's past events were. A host that deletes a customer, booking, enquiry or review, or rewrites one to
// name another e-mail or customer, leaves its stored events naming the person it named then; no record leads an
// erasure to them any more. A write listener keeps the link, in the write's own transaction: the person's e-mail (or
// a review's author name) as a SHA-256, their customer id, and the range of the record's events that were theirs:
// from the change that made the record name them (or its start) to the change that stopped it, both changes' own
// events included (each names both people: one in `data`, the other in `previous_attributes`). Such writes are rare
// (a host's ordinary writes change neither), so this costs the write path a comparison; links older than the events
// are dropped as new ones come.
import type { Kysely } from 'kysely';
import type { Core } from '../core.js';
import type { RecordChange } from '../host/changes.js';
import { newId } from '../ids.js';
import { emailSha256 } from '../records/normalize.js';
import type { PublicRecords } from '../records/schemas.js';
import type { Database } from '../store/tables.js';
import { retryOnConflict } from '../host/locks.js';
import { eventIdAt } from '../webhooks/retention.js';
import { chunks } from './chunks.js';

type Db = Kysely<Database>;
const DAY_MS = 86_400_000;

interface Subject {
  email: string | null; // lower-cased
  name: string | null; // a review's author, lower-cased (reviews are matched by name; the record shows no e-mail)
  customerId: number | null;
}

const lower = (s: string | null | undefined) => (s ? s.trim().toLowerCase() || null : null);

/** A review author's name, hashed as an e-mail is (trimmed, lower-cased): the link keeps no name. */
const nameSha256 = emailSha256;

/** Who a record names, for the kinds whose events carry a person. */
function subjectOf(resource: string, record: unknown): Subject | null {
  switch (resource) {
    case 'customers': {
      const c = record as PublicRecords['customers'];
      return { email: lower(c.email), name: null, customerId: c.id };
    }
    case 'bookings': {
      const c = (record as PublicRecords['bookings']).customer;
      return c ? { email: lower(c.email), name: null, customerId: c.id ?? null } : null;
    }
    case 'enquiries':
      return { email: lower((record as PublicRecords['enquiries']).email), name: null, customerId: null };
    case 'reviews':
      return { email: null, name: lower((record as PublicRecords['reviews']).author_name), customerId: null };
    default:
      return null;
  }
}

const same = (a: Subject, b: Subject) => a.email === b.email && a.name === b.name && a.customerId === b.customerId;

/** The write listener: a link for the person a change stops naming. */
export async function keepPastSubject(trx: Db, change: RecordChange, core: Core): Promise<void> {
  if (change.before === null) return;
  const was = subjectOf(change.resource, change.before);
  if (!was || (was.email === null && was.name === null && was.customerId === null)) return;
  const is = change.after === null ? null : subjectOf(change.resource, change.after);
  if (is && same(is, was)) return;
  const now = core.clock.now();
  const previous = await lastChange(trx, change.resource, [change.id]);
  await trx.insertInto('past_subjects').values({
    id: newId('psb', now), resource: change.resource, record_id: change.id,
    email_sha256: was.email === null ? null : emailSha256(was.email),
    name_sha256: was.name === null ? null : nameSha256(was.name), customer_id: was.customerId,
    // The change's own events, recorded by the webhooks listener before this one, are both people's: in the range
    // that ends here (they are no younger than now), and in the next one (they are no older than change.at).
    from_event_id: previous.get(change.id) ?? '', until_event_id: eventIdAt(now + 1), changed_at_ms: change.at,
  }).execute();
  // Links whose events are gone: older than the feed's retention, with no event of theirs left.
  const before = eventIdAt(now - core.config.eventRetentionDays * DAY_MS);
  await trx.deleteFrom('past_subjects').where('until_event_id', '<', before)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('events').select('events.id')
      .whereRef('events.resource', '=', 'past_subjects.resource')
      .whereRef('events.record_id', '=', 'past_subjects.record_id')
      .whereRef('events.id', '<', 'past_subjects.until_event_id'))))
    .execute();
}

/**
 * Where each of these records' current subject's events begin: the event id of the last change of whom it names
 * (past_subjects_record index); records never changed are absent (their events are all the current subject's).
 */
export async function lastChange(db: Db, resource: string, ids: readonly number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (const part of chunks([...ids])) {
    const rows = await db.selectFrom('past_subjects')
      .select((eb) => ['record_id', eb.fn.max('changed_at_ms').as('at')])
      .where('resource', '=', resource).where('record_id', 'in', part).groupBy('record_id').execute();
    for (const r of rows) out.set(Number(r.record_id), eventIdAt(Number(r.at)));
  }
  return out;
}

export interface PastRecord {
  link: string; // its past_subjects id
  resource: string;
  id: number;
  fromEventId: string;
  untilEventId: string;
}

/** The ranges of records' events that were the person's (by e-mail hash, review author, customer id; indexed). */
export async function pastRecords(db: Db, emails: readonly string[], names: readonly string[],
  customerIds: readonly number[]): Promise<PastRecord[]> {
  const out = new Map<string, PastRecord>();
  type Row = { id: string; resource: string; record_id: number; from_event_id: string; until_event_id: string };
  const add = (rows: Row[]) => {
    for (const r of rows) {
      out.set(r.id, { link: r.id, resource: r.resource, id: Number(r.record_id), fromEventId: r.from_event_id,
        untilEventId: r.until_event_id });
    }
  };
  const columns = ['id', 'resource', 'record_id', 'from_event_id', 'until_event_id'] as const;
  for (const part of chunks(emails.map(emailSha256))) {
    add(await db.selectFrom('past_subjects').select(columns).where('email_sha256', 'in', part).execute());
  }
  for (const part of chunks(names.map(nameSha256))) {
    add(await db.selectFrom('past_subjects').select(columns).where('name_sha256', 'in', part).execute());
  }
  for (const part of chunks([...customerIds])) {
    add(await db.selectFrom('past_subjects').select(columns).where('customer_id', 'in', part).execute());
  }
  return [...out.values()].sort((a, b) => (a.link < b.link ? -1 : 1));
}

/** After an erasure: the person's links go with the copies they led to. */
export async function forgetPastSubjects(db: Db, past: readonly PastRecord[]): Promise<void> {
  for (const part of chunks(past.map((r) => r.link))) {
    await retryOnConflict(() => db.deleteFrom('past_subjects').where('id', 'in', part).execute());
  }
}
