// An erasure, step by step, each step safe to run twice: the copies first (delivery bodies, then stored events),
// the records last, because the records are how the copies are found; so an erasure cut short and asked for again
// finds everything that is left. Then the caches, and on SQLite the WAL (what a replaced page leaves behind).
// Deliveries still pending send the erased data; what receivers already got is listed, not recalled.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Core } from '../core.js';
import { affectedApiResources, type Resource } from '../records/schemas.js';
import type { StoredRecords } from '../records/normalize.js';
import { deleteStored, readStored, writeStored } from '../records/rows.js';
import { lockNames } from '../store/locks.js';
import { forgetReplacedData, mergeSearchIndex, type Searchable } from '../store/dialect.js';
import type { Database } from '../store/tables.js';
import { retryOnConflict } from '../host/locks.js';
import { recordOwnEvent } from '../webhooks/events.js';
import { wakeWorkers } from '../webhooks/outbox.js';
import { apiServices } from '../api/install.js';
import { API_RESOURCES } from '../records/schemas.js';
import { ANONYMOUS, anonymised, erasedJson, scrubText } from './anonymise.js';
import { chunks } from './chunks.js';
import {
  findPerson, personDeliveries, personEvents, receivedBy, type Person, type PersonDelivery, type PersonEvent,
  type PersonQuery,
} from './person.js';
import { forgetPastSubjects } from './past-subjects.js';
import { NO_COUNTS, type ErasureCounts, type ErasureStep } from './jobs.js';
import type { ReceivedBy } from './jobs.js';

type Db = Kysely<Database>;

/** Rows rewritten per transaction: short transactions, so host writes never wait long behind an erasure. */
const BATCH = 100;

/** The search indexes whose text holds personal data (searchTextOf: trips' and payments' hold none). */
const PERSONAL_SEARCH: Searchable[] = ['customers', 'bookings'];

export interface EraseProgress {
  step(step: ErasureStep, counts: ErasureCounts, webhooks?: ReceivedBy[]): Promise<void>;
}

export interface Erased {
  counts: ErasureCounts;
  webhooks: ReceivedBy[];
  eventIds: string[];
}

export async function erasePerson(core: Core, q: PersonQuery, progress: EraseProgress): Promise<Erased> {
  const person = await findPerson(core.db, q);
  const events = await personEvents(core.db, person);
  const deliveries = await personDeliveries(core.db, events);
  const webhooks = await receivedBy(core.db, deliveries);
  const counts: ErasureCounts = { ...NO_COUNTS, events: events.length, deliveries: deliveries.length };
  addRecordCounts(counts, person);
  await progress.step('deliveries', counts, webhooks);
  counts.attempts = await eraseDeliveries(core.db, person, events, deliveries);
  await erasePaymentDeliveries(core.db, person); // not the person's deliveries: the net goes over them
  await progress.step('events', counts);
  await eraseEvents(core.db, person, events);
  await progress.step('records', counts);
  const eventIds = await eraseRecords(core, person);
  await forgetPastSubjects(core.db, person.past);
  await eraseRaced(core, q, person, counts, eventIds);
  await progress.step('caches', counts);
  await purgeCaches(core);
  await progress.step('compacting', counts);
  const renew = () => progress.step('compacting', counts); // the job's lease, while it waits
  await eraseInFlight(core, person, events, deliveries.filter((d) => d.status === 'pending'), renew); // counted above
  await compact(core);
  return { counts, webhooks, eventIds };
}

/** How often an erasure looks whether the sends it waits for were recorded, and renews its job's lease meanwhile. */
const IN_FLIGHT_POLL_MS = 50;
const RENEW_MS = 10_000;

/**
 * A delivery of theirs that a worker was sending while the steps above ran is recorded afterwards, with the body it
 * had loaded and the receiver's answer. The erasure waits for those sends to be recorded (at most a lease, after
 * which a send is taken over and records again) and erases their attempts once more.
 */
async function eraseInFlight(core: Core, p: Person, events: readonly PersonEvent[],
  pending: readonly PersonDelivery[], renew: () => Promise<void>): Promise<void> {
  if (pending.length === 0) return;
  const deadline = core.clock.now() + core.config.leaseMs;
  const realDeadline = Date.now() + core.config.leaseMs; // a clock a test holds still must not hold this forever
  const leased = async () => {
    for (const part of chunks(pending.map((d) => d.id))) {
      const row = await core.db.selectFrom('deliveries').select('id').where('id', 'in', part)
        .where('status', '=', 'pending').where('lease_until', '>', core.clock.now()).executeTakeFirst();
      if (row) return true;
    }
    return false;
  };
  let renewed = Date.now();
  while (core.clock.now() < deadline && Date.now() < realDeadline && await leased()) {
    await sleep(IN_FLIGHT_POLL_MS);
    if (Date.now() - renewed >= RENEW_MS) {
      await renew();
      renewed = Date.now();
    }
  }
  await eraseDeliveries(core.db, p, events, pending);
}

/** Searches again after a raced write: how many times at most (each finds only what committed meanwhile). */
const RACE_ROUNDS = 3;

/**
 * Host writes that committed while the steps above ran: new events of the person's records, and records that name
 * them again (a booking sent with their customer, say) are erased too, until a search finds nothing new. What
 * commits before the erasure ends is erased; what comes after is new data.
 */
async function eraseRaced(core: Core, q: PersonQuery, first: Person, counts: ErasureCounts, own: string[])
  : Promise<void> {
  let person = first;
  for (let round = 0; ; round++) {
    // All their records' events again, not only those since the start: an update's event can be older than the
    // erasure's start and commit after its first search.
    const late = (await personEvents(core.db, person)).filter((e) => !own.includes(e.id));
    await eraseDeliveries(core.db, person, late, await personDeliveries(core.db, late)); // counted above
    await eraseEvents(core.db, person, late);
    const again = await findPerson(core.db, q);
    if (!namesAnyone(again)) return;
    if (round === RACE_ROUNDS) {
      throw new Error(`host writes kept naming the person through ${RACE_ROUNDS} searches: ask again to finish`);
    }
    const events = await personEvents(core.db, again);
    const deliveries = await personDeliveries(core.db, events);
    counts.attempts += await eraseDeliveries(core.db, again, events, deliveries);
    await erasePaymentDeliveries(core.db, again);
    await eraseEvents(core.db, again, events);
    own.push(...await eraseRecords(core, again));
    await forgetPastSubjects(core.db, again.past);
    addRecordCounts(counts, again);
    counts.events += events.length;
    counts.deliveries += deliveries.length;
    person = together(person, again);
  }
}

const namesAnyone = (p: Person): boolean => p.customers.length + p.bookings.length + p.enquiries.length
  + p.reviews.length + p.past.length > 0;

function addRecordCounts(counts: ErasureCounts, p: Person): void {
  counts.customers += p.customers.length;
  counts.bookings += p.bookings.length;
  counts.payments += p.payments.length;
  counts.enquiries += p.enquiries.length;
  counts.reviews += p.reviews.length;
}

const together = (a: Person, b: Person): Person => ({
  customers: [...a.customers, ...b.customers], bookings: [...a.bookings, ...b.bookings],
  payments: [...a.payments, ...b.payments], enquiries: [...a.enquiries, ...b.enquiries],
  reviews: [...a.reviews, ...b.reviews], past: [...a.past, ...b.past],
  identifiers: [...new Set([...a.identifiers, ...b.identifiers])],
});

/** Payment events carry no personal field, but a webhookPayload filter may have added one: the net goes over them. */
async function erasePaymentDeliveries(db: Db, p: Person): Promise<void> {
  const paid = await personEvents(db, p, [{ resource: 'payments', ids: p.payments.map((r) => r.id) }]);
  await eraseDeliveries(db, p, paid, await personDeliveries(db, paid));
}

/**
 * Request bodies erased like their events; receivers' answers (body and headers: either may echo anything) dropped;
 * errors scrubbed.
 */
async function eraseDeliveries(db: Db, p: Person, events: readonly PersonEvent[],
  deliveries: readonly PersonDelivery[]): Promise<number> {
  const resourceOf = new Map(events.map((e) => [e.id, e.resource]));
  let attempts = 0;
  for (const part of chunks(deliveries, BATCH)) {
    // Counted once the batch commits: a transaction run again after a conflict would count its attempts twice.
    attempts += await retryOnConflict(() => db.transaction().execute(async (trx) => {
      const ids = part.map((d) => d.id);
      const rows = await trx.selectFrom('delivery_attempts')
        .select(['id', 'delivery_id', 'request_body', 'response_body', 'response_headers', 'error'])
        .where('delivery_id', 'in', ids).execute();
      const eventOf = new Map(part.map((d) => [d.id, d.event_id]));
      for (const a of rows) {
        const resource = resourceOf.get(eventOf.get(a.delivery_id) ?? '') ?? '';
        const body = erasedJson(a.request_body, resource, p.identifiers, true);
        const error = a.error === null ? null : scrubText(a.error, p.identifiers);
        const answered = a.response_body !== null || a.response_headers !== null;
        if (body === a.request_body && !answered && error === a.error) continue;
        await trx.updateTable('delivery_attempts')
          .set({ request_body: body, response_body: null, response_headers: null, error })
          .where('id', '=', a.id).execute();
      }
      const errors = await trx.selectFrom('deliveries').select(['id', 'last_error'])
        .where('id', 'in', ids).where('last_error', 'is not', null).execute();
      for (const d of errors) {
        const error = scrubText(d.last_error!, p.identifiers);
        if (error !== d.last_error) await trx.updateTable('deliveries').set({ last_error: error })
          .where('id', '=', d.id).execute();
      }
      return rows.length;
    }));
  }
  return attempts;
}

async function eraseEvents(db: Db, p: Person, events: readonly PersonEvent[]): Promise<void> {
  for (const part of chunks(events, BATCH)) {
    await retryOnConflict(() => db.transaction().execute(async (trx) => {
      const rows = await trx.selectFrom('events').select(['id', 'resource', 'data', 'previous_attributes'])
        .where('id', 'in', part.map((e) => e.id)).execute();
      for (const e of rows) {
        const resource = e.resource ?? '';
        const data = erasedJson(e.data, resource, p.identifiers, false);
        const previous = e.previous_attributes === null ? null
          : erasedJson(e.previous_attributes, resource, p.identifiers, false);
        if (data === e.data && previous === e.previous_attributes) continue;
        await trx.updateTable('events').set({ data, previous_attributes: previous }).where('id', '=', e.id).execute();
      }
    }));
  }
}

/**
 * One transaction: customers and enquiries are deleted, bookings keep everything but their customer (and show a new
 * `updated_at`, so API clients that sync by `modified_after` fetch the erased booking), reviews keep their words under
 * "Anonymous". Each customer erased is told as a customer.erased event. Returns those events' ids.
 */
async function eraseRecords(core: Core, p: Person): Promise<string[]> {
  const now = new Date(core.clock.now()).toISOString();
  const names = [
    ...p.customers.map((r) => `customers:${r.id}`), ...p.bookings.map((r) => `bookings:${r.id}`),
    ...p.enquiries.map((r) => `enquiries:${r.id}`), ...p.reviews.map((r) => `reviews:${r.id}`),
    ...p.customers.map((c) => `customer-email:${c.email.toLowerCase()}`),
  ];
  const eventIds = await retryOnConflict(() => core.db.transaction().execute(async (trx) => {
    await lockNames(trx, names);
    const ids: string[] = [];
    for (const b of p.bookings) {
      const stored = await readStored(trx, 'bookings', b.id);
      if (stored?.customer) await writeStored(trx, 'bookings', { ...stored, customer: null, updated_at: now }, stored);
    }
    for (const r of p.reviews) {
      const stored = await readStored(trx, 'reviews', r.id);
      if (stored && (stored.author_name !== ANONYMOUS || stored.author_email_sha256)) {
        await writeStored(trx, 'reviews', { ...stored, author_name: ANONYMOUS, author_email_sha256: null }, stored);
      }
    }
    for (const e of p.enquiries) await removeStored(trx, 'enquiries', e.id);
    for (const c of p.customers) {
      const stored = await removeStored(trx, 'customers', c.id);
      if (!stored) continue;
      const data = { ...anonymised('customers', stored), booking_ids: p.bookings.map((b) => b.id), updated_at: now };
      ids.push(await recordOwnEvent(trx, core, { type: 'customer.erased', resource: 'customers', recordId: c.id,
        data }));
    }
    return ids;
  }));
  const changed: Resource[] = ['customers', 'bookings', 'enquiries', 'reviews'];
  core.bus.emit('records.changed', [...new Set([...changed, ...affectedApiResources(changed)])]);
  if (eventIds.length > 0) wakeWorkers(core);
  return eventIds;
}

async function removeStored<R extends Resource>(trx: Db, resource: R, id: number):
Promise<StoredRecords[R] | null> {
  const stored = await readStored(trx, resource, id);
  if (stored) await deleteStored(trx, resource, stored);
  return stored;
}

/**
 * Cached API answers are deleted, not just passed over (a new generation leaves the old entries in memory or Redis
 * until they expire), and the searches remembered as common are forgotten (a search text could be a name).
 */
async function purgeCaches(core: Core): Promise<void> {
  await apiServices(core).cache.purge(API_RESOURCES);
  core.knownCommon.clear();
}

/** The search index (SQLite) keeps none of the erased terms, and the WAL none of the pages the erasure replaced. */
async function compact(core: Core): Promise<void> {
  await mergeSearchIndex(core.db, PERSONAL_SEARCH);
  await forgetReplacedData(core.db);
}
