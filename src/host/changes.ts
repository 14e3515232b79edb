import type { PublicRecords, Resource } from '../records/schemas.js';

/**
 * One record that a host write created, changed or removed, in its public shape before and after. A write can
 * produce several (a booking with a new embedded customer creates the customer too). The webhooks capability
 * derives events from these inside the same transaction.
 */
export interface RecordChange<R extends Resource = Resource> {
  resource: R;
  id: number;
  before: PublicRecords[R] | null;
  after: PublicRecords[R] | null;
  /** When the write made it (ms, the core's clock): the events it records are no older. */
  at: number;
}
