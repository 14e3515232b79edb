// Redis-backed rate-limit counters: all API processes share one count per key and window.
import type { Redis } from 'ioredis';
import { windowStart, type RateLimitStore, type WindowCount } from './rate-limit.js';

export class RedisRateLimiter implements RateLimitStore {
  constructor(private readonly redis: Redis, private readonly prefix: string) {}

  private keyFor(bucket: string, start: number): string {
    return `${this.prefix}rl:${bucket}:${start}`;
  }

  async hit(bucket: string, windowMs: number, now: number): Promise<WindowCount> {
    const start = windowStart(now, windowMs);
    const key = this.keyFor(bucket, start);
    // The key outlives its window a little so clock skew between processes does not reset it early.
    const [[, count]] = (await this.redis.multi().incr(key).pexpire(key, windowMs + 5_000, 'NX').exec()) as [[Error | null, number], unknown];
    return { count: Number(count), resetAt: start + windowMs };
  }

  async peek(bucket: string, windowMs: number, now: number): Promise<WindowCount> {
    const start = windowStart(now, windowMs);
    const raw = await this.redis.get(this.keyFor(bucket, start));
    return { count: raw ? Number(raw) : 0, resetAt: start + windowMs };
  }

  async close(): Promise<void> {}
}
