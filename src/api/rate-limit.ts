// Fixed-window request counters (per API key, and per client IP for failed authentication). Stores share one
// tiny interface (memory / Redis); windows are aligned to the clock so every process agrees on when they reset.

export interface WindowCount {
  count: number;
  /** ms since the epoch when the window ends and the count starts again. */
  resetAt: number;
}

/** One request's checks, made together (one round trip to Redis). */
export interface AdmitRequest {
  /** The client's failed-authentication bucket, and its limit per window. */
  attempts: string;
  attemptLimit: number;
  /** The key's request bucket when the credentials were right; null when they were not (a failed attempt). */
  key: string | null;
  windowMs: number;
  now: number;
}

export interface Admission {
  /** The client's failed attempts in this window, with this request's if it failed or was refused. */
  attempts: WindowCount;
  /** The client is over its failure limit: refused, whatever its credentials, and nothing was counted. */
  refused: boolean;
  /** The key's requests in this window, this one included (counted only when the credentials were right). */
  used: WindowCount | null;
}

export interface RateLimitStore {
  /**
   * Decides a request atomically: refused while its client's failed attempts are at the limit; else a failed
   * attempt is counted against the client, and a request with the right credentials against its key. So however
   * many arrive at once (in every process, with Redis), at most the limit of failures per window get an answer
   * other than 429, and a right secret sent after them is refused too.
   */
  admit(request: AdmitRequest): Promise<Admission>;
  close(): Promise<void>;
}

export const windowStart = (now: number, windowMs: number) => Math.floor(now / windowMs) * windowMs;

export class MemoryRateLimiter implements RateLimitStore {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  async admit({ attempts, attemptLimit, key, windowMs, now }: AdmitRequest): Promise<Admission> {
    const start = windowStart(now, windowMs);
    this.sweep(start);
    const resetAt = start + windowMs;
    const failed = this.count(attempts, start) + 1;
    if (failed > attemptLimit) return { attempts: { count: failed, resetAt }, refused: true, used: null };
    if (key === null) return { attempts: { count: this.add(attempts, start), resetAt }, refused: false, used: null };
    const used = { count: this.add(key, start), resetAt };
    return { attempts: { count: failed - 1, resetAt }, refused: false, used };
  }

  private count(bucket: string, start: number): number {
    const w = this.windows.get(bucket);
    return w && w.start === start ? w.count : 0;
  }

  private add(bucket: string, start: number): number {
    const w = this.windows.get(bucket);
    if (w && w.start === start) return ++w.count;
    this.windows.set(bucket, { start, count: 1 });
    return 1;
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
