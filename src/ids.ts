// Prefixed, time-sortable ids (like Stripe's, or ULIDs): `prefix_` + 12 hex digits of milliseconds + 16 hex digits
// that are random, except that ids made in the same millisecond by this process count up from the previous one
// (as monotonic ULIDs do). Sorting by id therefore sorts by creation order, which the delivery log relies on.
import { randomBytes } from 'node:crypto';

const MAX_SUFFIX = (1n << 64n) - 1n;
let lastMs = -1;
let lastSuffix = 0n;

export function newId(prefix: string, nowMs: number = Date.now()): string {
  if (nowMs === lastMs && lastSuffix < MAX_SUFFIX) {
    lastSuffix += 1n;
  } else {
    lastMs = nowMs;
    lastSuffix = randomBytes(8).readBigUInt64BE() >> 1n; // room to count up within the millisecond
  }
  return `${prefix}_${nowMs.toString(16).padStart(12, '0')}${lastSuffix.toString(16).padStart(16, '0')}`;
}
