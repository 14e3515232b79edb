// The per-webhook throttle (docs/webhooks.md "Throttle"): a webhook with max_per_second = N is sent at most N
// deliveries a second, counted across every worker process. Its send slots are 1000 / N ms apart (GCRA, "next free
// slot"); the next free one is a database row that every worker advances atomically (DeliveryQueue.reserveSlots), so
// two processes never get the same slot. A delivery waits in its worker for its slot. Webhooks without a limit never
// come here: they pay no statement.
import type { Clock } from '../../core.js';
import type { DeliveryQueue } from './queue/index.js';

/** Milliseconds between two sends at `perSecond` (fractional: 3/s is 333.33 ms). */
export function slotInterval(perSecond: number): number {
  return 1000 / perSecond;
}

/**
 * GCRA's reservation, as the queue's statement computes it: `count` slots from the stored next free slot, or from
 * `now` if that has passed (an idle webhook does not bank unused slots). Returns the first slot and the new next.
 */
export function reserve(
  next: number | null, now: number, count: number, interval: number,
): { first: number; next: number } {
  const first = next === null ? now : Math.max(next, now);
  return { first, next: first + count * interval };
}

/**
 * How many of a throttled webhook's deliveries one worker runs at once (waiting for a slot counts): enough to keep
 * the rate with a receiver that takes a second or two, few enough that a wait stays short.
 */
export function throttledConcurrency(perSecond: number, perWebhook: number): number {
  return Math.min(perWebhook, Math.max(2, 2 * perSecond));
}

interface Batch {
  perSecond: number;
  waiters: Array<{ resolve: (at: number) => void; reject: (err: unknown) => void }>;
}

/** Reserves slots for a worker; the deliveries of one webhook asking in the same tick share one statement. */
export class Throttle {
  private readonly pending = new Map<string, Batch>();

  constructor(private readonly queue: DeliveryQueue, private readonly clock: Clock) {}

  /** When this delivery may be sent (ms): its own slot of the webhook's, reserved for it in the database. */
  slot(webhookId: string, perSecond: number): Promise<number> {
    let batch = this.pending.get(webhookId);
    if (!batch) {
      batch = { perSecond, waiters: [] };
      this.pending.set(webhookId, batch);
      queueMicrotask(() => void this.flush(webhookId));
    }
    const { waiters } = batch;
    return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
  }

  private async flush(webhookId: string): Promise<void> {
    const batch = this.pending.get(webhookId)!;
    this.pending.delete(webhookId);
    const interval = slotInterval(batch.perSecond);
    try {
      const first = await this.queue.reserveSlots(webhookId, batch.waiters.length, interval, this.clock.now());
      batch.waiters.forEach((w, i) => w.resolve(first + i * interval));
    } catch (err) {
      for (const w of batch.waiters) w.reject(err);
    }
  }
}

/** Resolves true at `at` by `clock`, or false as soon as `signal` aborts (the worker is stopping). */
export function waitUntil(clock: Clock, at: number, signal: AbortSignal): Promise<boolean> {
  const delay = at - clock.now();
  if (signal.aborted) return Promise.resolve(false);
  if (delay <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, delay);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
