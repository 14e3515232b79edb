// Redis-backed rate-limit counters: all API processes share one count per key and window.
import type { Redis } from 'ioredis';
import { windowStart, type RateLimitStore, type WindowCount } from './rate-limit.js';

const REFUND = "if redis.call('exists', KEYS[1]) == 1 then return redis.call('decr', KEYS[1]) end return 0";

export class RedisRateLimiter implements RateLimitStore {
  constructor(private readonly redis: Redis, private readonly prefix: string) {}

  private keyFor(bucket: string, start: number): string {
    return `${this.prefix}rl:${bucket}:${start}`;
  }

  async hit(bucket: string, windowMs: number, now: number): Promise<WindowCount> {
    const start = windowStart(now, windowMs);
    const key = this.keyFor(bucket, start);
    // The key outlives its window a little so clock skew between processes does not reset it early.
    const [[, count]] = (await this.redis.multi().incr(key).pexpire(key, windowMs + 5_000, 'NX').exec()) as [
      [Error | null, number],
      unknown,
    ];
    return { count: Number(count), resetAt: start + windowMs };
  }

  async refund(bucket: string, windowMs: number, now: number): Promise<void> {
    // Only an existing key: a plain DECR after the key expired would leave a -1 with no expiry behind.
    await this.redis.eval(REFUND, 1, this.keyFor(bucket, windowStart(now, windowMs)));
  }

  async close(): Promise<void> {}
}
