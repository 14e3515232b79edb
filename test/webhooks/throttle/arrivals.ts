// Counting a receiver's arrivals per second, for the throttle's tests and its benchmark.
import type { Received } from '../engine/receiver.js';

/** Arrivals per whole second from the first one (the last, partial second included). */
export function perSecond(times: readonly number[]): number[] {
  if (times.length === 0) return [];
  const start = Math.min(...times);
  const counts: number[] = [];
  for (const t of times) {
    const s = Math.floor((t - start) / 1000);
    while (counts.length <= s) counts.push(0);
    counts[s]++;
  }
  return counts;
}

/** The most arrivals within any window of `windowMs` (sliding): what a receiver's own rate limiter would see. */
export function busiestWindow(times: readonly number[], windowMs = 1000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** The arrival times of the requests for one webhook (by its X-Waypost-Webhook-Id header). */
export function arrivalsOf(requests: readonly Received[], webhookId: string): number[] {
  return requests.filter((r) => r.headers['x-waypost-webhook-id'] === webhookId).map((r) => r.at);
}
