// What a write stores: validated input → the stored record, with created_at/updated_at decided against what was
// stored before. Pure: the single write path (write.ts) and the importer's batches (bulk.ts) share it.
import { isDeepStrictEqual } from 'node:util';
import {
  isoInput,
  normalizeBooking,
  normalizeCustomer,
  normalizeEnquiry,
  normalizePayment,
  normalizeReview,
  normalizeTrip,
  type StoredRecords,
} from '../records/normalize.js';
import type { InputRecords, Resource } from '../records/schemas.js';

/** The record to store and whether it differs from the previous one (a PUT that changes nothing writes nothing). */
export function storedFor<R extends Resource>(
  resource: R,
  id: number,
  input: InputRecords[R],
  previous: StoredRecords[R] | null,
  now: string,
  customerId: number | null,
): { next: StoredRecords[R]; changed: boolean } {
  let draft: Record<string, unknown>;
  switch (resource) {
    case 'trips': draft = normalizeTrip(id, input as InputRecords['trips']); break;
    case 'customers': draft = normalizeCustomer(id, input as InputRecords['customers']); break;
    case 'bookings': draft = normalizeBooking(id, input as InputRecords['bookings'], customerId); break;
    case 'payments': draft = normalizePayment(id, input as InputRecords['payments']); break;
    case 'enquiries': draft = normalizeEnquiry(id, input as InputRecords['enquiries']); break;
    case 'reviews': draft = normalizeReview(id, input as InputRecords['reviews']); break;
    default: throw new Error(`unknown resource ${resource as string}`);
  }
  const prev = previous as Record<string, unknown> | null;
  const next = withTimes(resource, draft, input as { created_at?: string; updated_at?: string }, prev, now);
  return { next: next as unknown as StoredRecords[R], changed: prev === null || !isDeepStrictEqual(prev, next) };
}

/**
 * created_at: the host's value, else the stored one, else now. updated_at: the host's value, else unchanged when
 * nothing else changed (so repeating a PUT is a no-op), else now. Enquiries and reviews have only created_at.
 */
function withTimes(
  resource: Resource,
  draft: Record<string, unknown>,
  input: { created_at?: string; updated_at?: string },
  previous: Record<string, unknown> | null,
  now: string,
): Record<string, unknown> {
  const createdAt = input.created_at
    ? isoInput(input.created_at)
    : ((previous?.created_at as string | undefined) ?? now);
  if (resource === 'enquiries' || resource === 'reviews') return { ...draft, created_at: createdAt };
  if (input.updated_at) return { ...draft, created_at: createdAt, updated_at: isoInput(input.updated_at) };
  const unchanged =
    previous !== null &&
    isDeepStrictEqual({ ...draft, created_at: createdAt, updated_at: previous.updated_at }, previous);
  return { ...draft, created_at: createdAt, updated_at: unchanged ? (previous.updated_at as string) : now };
}
