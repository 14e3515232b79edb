// Prefixed, time-sortable ids (like Stripe's): `prefix_` + 12 hex digits of milliseconds + 16 random hex digits.
// Sorting by id sorts by creation time, which the delivery log relies on.
import { randomBytes } from 'node:crypto';

export function newId(prefix: string, nowMs: number = Date.now()): string {
  return `${prefix}_${nowMs.toString(16).padStart(12, '0')}${randomBytes(8).toString('hex')}`;
}
