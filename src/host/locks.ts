// Concurrent host writes on PostgreSQL. Under READ COMMITTED a read-then-write upsert races (two PUTs of a new id
// both insert: unique violation), and a booking's `before` can miss a payment committed meanwhile. Each write
// therefore first locks (src/store/locks.ts) everything it reads to derive its events (the record, its booking for a
// payment, its customer or the customer's e-mail for a booking); after that its reads see every earlier writer's
// commit, so concurrent writes come out as some serial order. SQLite writes are serial already. The retries of a write
// (after a conflict, after a dropped connection) are here too.
import type { Kysely } from 'kysely';
import { isDroppedConnection } from '../errors.js';
import type { InputRecords, Resource } from '../records/schemas.js';
import type { Database } from '../store/tables.js';

/** The lock names a write of `resource/id` with this input takes. */
export function writeLockNames(resource: Resource, id: number, input: InputRecords[Resource] | null): string[] {
  const names = [`${resource}:${id}`];
  if (input === null) return names;
  if (resource === 'payments') names.push(`bookings:${(input as InputRecords['payments']).booking_id}`);
  if (resource === 'customers') names.push(customerEmailLock((input as InputRecords['customers']).email));
  if (resource === 'bookings') {
    const customer = (input as InputRecords['bookings']).customer;
    if (customer) {
      if (customer.id !== undefined) names.push(`customers:${customer.id}`);
      names.push(customerEmailLock(customer.email));
    }
  }
  return names;
}

const customerEmailLock = (email: string) => `customer-email:${email.toLowerCase()}`;

const RETRYABLE = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '23505', // unique_violation: a writer the locks do not cover (another Waypost version, a manual INSERT)
]);
const MAX_ATTEMPTS = 5;

/** Runs a write transaction again (from scratch) when PostgreSQL aborted it for a conflict with another writer. */
export async function retryOnConflict<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt >= MAX_ATTEMPTS || typeof code !== 'string' || !RETRYABLE.has(code)) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
    }
  }
}

// A pool holds at most this many connections (store/db.ts), so it can hand out at most as many that died while idle.
const MAX_STALE_CONNECTIONS = 10;
// A moment for the pool to hear of the other connections the same failover dropped, so the retry gets a live one
// (longer after each cut: a failover can drop the new connections too).
const DROP_RETRY_PAUSE_MS = 20;
// Attempts cut off by a drop before the write gives up with a 503. One was the rule until CI showed, on a busy
// machine, writes slow enough (1-2 s) to be cut by two pg_terminate_backend rounds 1.5 s apart (db-failover.test.ts).
const MAX_CUTS = 3;

/**
 * One write transaction, run again after a conflict (retryOnConflict) and again when its database connection died
 * before the answer (a failover, pg_terminate_backend): up to MAX_CUTS such drops are invisible to the host; one more
 * is thrown (503 with Retry-After). A pooled connection found dead at BEGIN (it died while idle, nothing of the write
 * ran) does not count: the write just takes another. A retry is safe whether or not the cut attempt committed:
 * - if the connection died before COMMIT was sent, PostgreSQL rolled the transaction back, so nothing happened;
 * - if it died after (the COMMIT may or may not have been applied: we cannot know), the retry takes the same
 *   advisory locks, so it waits for that transaction to end and reads its outcome. A PUT of the same content is then
 *   a no-op (storedFor: nothing changed, no event), and a DELETE finds nothing: no event is fired twice.
 * `cutOff` is what the first cut-off attempt whose body had run to the end computed (its COMMIT may have been
 * applied), else null: the caller answers as that attempt would have and invalidates what it may have changed.
 */
export async function writeTransaction<T>(
  db: Kysely<Database>,
  body: (trx: Kysely<Database>) => Promise<T>,
): Promise<{ done: T; cutOff: T | null }> {
  let began = false;
  let finished: { value: T } | null = null;
  const attempt = () => retryOnConflict(() => db.transaction().execute(async (trx) => {
    began = true;
    finished = null;
    const value = await body(trx);
    finished = { value };
    return value;
  }));
  let cutOff: { value: T } | null = null;
  for (let stale = 0, cuts = 0; ; ) {
    began = false;
    try {
      return { done: await attempt(), cutOff: cutOff?.value ?? null };
    } catch (err) {
      if (!isDroppedConnection(err)) throw err;
      if (!began && stale++ < MAX_STALE_CONNECTIONS) continue;
      if (++cuts > MAX_CUTS) throw err;
      // The first cut attempt whose body ended is the answer: if its COMMIT was applied, every later attempt finds
      // nothing to do (and, cut too, would say so); if not, the next one computed the same change from the same state.
      cutOff ??= finished as { value: T } | null; // set inside attempt(), which TypeScript does not follow
      stale = 0; // the drop that cut this attempt may have killed the pool's idle connections again
      await new Promise((r) => setTimeout(r, DROP_RETRY_PAUSE_MS * cuts));
    }
  }
}

/**
 * A read the host's request depends on (its token, the batch's demo count), run again when its connection dropped:
 * nothing was written, so it may run again at once, and a pooled connection found dead is no reason to fail.
 */
export async function readAgainIfDropped<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (err) {
      if (!isDroppedConnection(err) || attempt > MAX_STALE_CONNECTIONS) throw err;
      if (attempt === 1) await new Promise((r) => setTimeout(r, DROP_RETRY_PAUSE_MS));
    }
  }
}
