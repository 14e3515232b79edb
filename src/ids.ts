// Prefixed, time-sortable ids (like Stripe's, or ULIDs): `prefix_` + 12 hex digits of milliseconds + 16 hex digits
// that are random, except that ids made in the same millisecond by this process count up from the previous one
// (as monotonic ULIDs do). Sorting by id therefore sorts by creation order, which the delivery log relies on.
import { randomFillSync } from 'node:crypto';

// The 64-bit suffix is kept as two 32-bit halves (plain numbers, not BigInt: ids are made on the worker's hot path).
const TWO_32 = 2 ** 32;
let lastMs = -1;
// The top 32 bits of the suffix: its top bit starts clear, so counting up within a millisecond cannot overflow
let high = 0;
let low = 0;
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
// Random bytes drawn 512 at a time (one call to the system's generator per 64 milliseconds that make ids).
const pool = Buffer.alloc(512);
let poolAt = pool.length;

export function newId(prefix: string, nowMs: number = Date.now()): string {
  if (nowMs === lastMs && !(high === 0xffffffff && low === 0xffffffff)) {
    low += 1;
    if (low === TWO_32) {
      low = 0;
      high += 1;
    }
  } else {
    lastMs = nowMs;
    if (poolAt + 8 > pool.length) {
      randomFillSync(pool);
      poolAt = 0;
    }
    high = pool.readUInt32BE(poolAt) >>> 1; // room to count up within the millisecond
    low = pool.readUInt32BE(poolAt + 4);
    poolAt += 8;
  }
  return `${prefix}_${hex(nowMs, 12)}${hex(high, 8)}${hex(low, 8)}`;
}
