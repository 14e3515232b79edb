// Fixed-window request counters (per API key, and per client IP for failed authentication). Stores share one
// tiny interface (memory / Redis); windows are aligned to the clock so every process agrees on when they reset.

export interface WindowCount {
  count: number;
  /** ms since the epoch when the window ends and the count starts again. */
  resetAt: number;
}

export interface RateLimitStore {
  /** Counts one request in the current window and returns the count including it. */
  hit(bucket: string, windowMs: number, now: number): Promise<WindowCount>;
  /** Takes back one hit of the window that `now` is in (a reserved attempt that turned out not to count). */
  refund(bucket: string, windowMs: number, now: number): Promise<void>;
  close(): Promise<void>;
}

export const windowStart = (now: number, windowMs: number) => Math.floor(now / windowMs) * windowMs;

export class MemoryRateLimiter implements RateLimitStore {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  async hit(bucket: string, windowMs: number, now: number): Promise<WindowCount> {
    const start = windowStart(now, windowMs);
    this.sweep(start);
    const w = this.windows.get(bucket);
    if (w && w.start === start) w.count += 1;
    else this.windows.set(bucket, { start, count: 1 });
    return { count: this.windows.get(bucket)!.count, resetAt: start + windowMs };
  }

  async refund(bucket: string, windowMs: number, now: number): Promise<void> {
    const w = this.windows.get(bucket);
    if (w && w.start === windowStart(now, windowMs) && w.count > 0) w.count -= 1;
  }

  /** Drops finished windows now and then, so the map holds only active clients. */
  private sweep(currentStart: number): void {
    if (currentStart === this.lastSweep) return;
    this.lastSweep = currentStart;
    for (const [k, w] of this.windows) if (w.start < currentStart) this.windows.delete(k);
  }

  async close(): Promise<void> {
    this.windows.clear();
  }
}

/**
 * The IETF headers in draft-ietf-httpapi-ratelimit-headers-10's structured-field syntax (RFC 9651): the policy is
 * a quota of `q` requests per `w` seconds, and RateLimit says how many remain (`r`) and in how many seconds the
 * window resets (`t`), both naming the policy.
 */
export function ietfRateLimitHeaders(
  policy: string, quota: number, windowS: number, remaining: number, resetInS: number,
): Record<string, string> {
  return {
    'RateLimit-Policy': `"${policy}";q=${quota};w=${windowS}`,
    RateLimit: `"${policy}";r=${remaining};t=${resetInS}`,
  };
}
