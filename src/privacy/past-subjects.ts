// Whose a record's past events were. A host that deletes a customer, a booking or an enquiry, or rewrites one to
// name another e-mail or customer, leaves its stored events naming the person it named then; no record leads an
// erasure to them any more. A write listener keeps the link, in the write's own transaction: the person's e-mail as
// a SHA-256, their customer id, and the first event id after the change. Such writes are rare (a host's ordinary
// writes change neither), so this costs the write path a comparison; links older than the events are dropped as new
// ones come.
import type { Kysely } from 'kysely';
import type { Core } from '../core.js';
import type { RecordChange } from '../host/changes.js';
import { newId } from '../ids.js';
import { emailSha256 } from '../records/normalize.js';
import type { PublicRecords } from '../records/schemas.js';
import type { Database } from '../store/tables.js';
import { eventIdAt } from '../webhooks/retention.js';
import { chunks } from './chunks.js';

type Db = Kysely<Database>;
const DAY_MS = 86_400_000;

interface Subject {
  email: string | null; // lower-cased
  customerId: number | null;
}

/** Who a record names, for the kinds whose events carry a person (reviews are found by name and e-mail hash). */
function subjectOf(resource: string, record: unknown): Subject | null {
  switch (resource) {
    case 'customers': {
      const c = record as PublicRecords['customers'];
      return { email: c.email.toLowerCase() || null, customerId: c.id };
    }
    case 'bookings': {
      const b = record as PublicRecords['bookings'];
      return b.customer ? { email: b.customer.email.toLowerCase() || null, customerId: b.customer.id ?? null } : null;
    }
    case 'enquiries':
      return { email: (record as PublicRecords['enquiries']).email.toLowerCase() || null, customerId: null };
    default:
      return null;
  }
}

/** The write listener: a link for the person a change stops naming. */
export async function keepPastSubject(trx: Db, change: RecordChange, core: Core): Promise<void> {
  if (change.before === null) return;
  const was = subjectOf(change.resource, change.before);
  if (!was || (was.email === null && was.customerId === null)) return;
  const is = change.after === null ? null : subjectOf(change.resource, change.after);
  if (is && is.email === was.email && is.customerId === was.customerId) return;
  const now = core.clock.now();
  await trx.insertInto('past_subjects').values({
    id: newId('psb', now), resource: change.resource, record_id: change.id,
    email_sha256: was.email === null ? null : emailSha256(was.email), customer_id: was.customerId,
    until_event_id: eventIdAt(now + 1), // the change's own events (previous_attributes) are theirs too
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

export interface PastRecord {
  resource: string;
  id: number;
  untilEventId: string; // the latest of its links'
  links: string[]; // past_subjects ids
}

/** The records whose events up to a change were the person's (by e-mail hash or customer id; both indexed). */
export async function pastRecords(db: Db, emails: readonly string[], customerIds: readonly number[])
  : Promise<PastRecord[]> {
  const out = new Map<string, PastRecord>();
  const add = (rows: Array<{ id: string; resource: string; record_id: number; until_event_id: string }>) => {
    for (const r of rows) {
      const key = `${r.resource}:${r.record_id}`;
      const known = out.get(key) ?? { resource: r.resource, id: Number(r.record_id), untilEventId: '', links: [] };
      if (!known.links.includes(r.id)) known.links.push(r.id);
      if (known.untilEventId < r.until_event_id) known.untilEventId = r.until_event_id;
      out.set(key, known);
    }
  };
  const columns = ['id', 'resource', 'record_id', 'until_event_id'] as const;
  for (const part of chunks(emails.map(emailSha256))) {
    add(await db.selectFrom('past_subjects').select(columns).where('email_sha256', 'in', part).execute());
  }
  for (const part of chunks([...customerIds])) {
    add(await db.selectFrom('past_subjects').select(columns).where('customer_id', 'in', part).execute());
  }
  return [...out.values()];
}

/** After an erasure: the person's links go with the copies they led to. */
export async function forgetPastSubjects(db: Db, past: readonly PastRecord[]): Promise<void> {
  for (const part of chunks(past.flatMap((r) => r.links))) {
    await db.deleteFrom('past_subjects').where('id', 'in', part).execute();
  }
}
