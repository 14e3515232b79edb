// Concurrent host writes on PostgreSQL. Under READ COMMITTED a read-then-write upsert races (two PUTs of a new id
// both insert: unique violation), and a booking's `before` can miss a payment committed meanwhile. Each write
// therefore first locks (src/store/locks.ts) everything it reads to derive its events (the record, its booking for a
// payment, its customer or the customer's e-mail for a booking); after that its reads see every earlier writer's
// commit, so concurrent writes come out as some serial order. SQLite writes are serial already.
import type { InputRecords, Resource } from '../records/schemas.js';

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
