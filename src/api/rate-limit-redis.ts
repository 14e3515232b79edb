// Redis-backed rate-limit counters: all API processes share one count per key and window. A request's checks are
// one script (atomic, one round trip): the client's failed attempts, then its failure or its key's count.
import type { Redis } from 'ioredis';
import { windowStart, type Admission, type AdmitRequest, type RateLimitStore } from './rate-limit.js';

// KEYS[1]: the client's failures; KEYS[2] (right credentials only): the key's requests. ARGV: the failure limit,
// the counters' lifetime in ms. Returns {failures with this request's, requests of the key or 0, refused 1/0}.
// A counter outlives its window a little so clock skew between processes does not reset it early.
const ADMIT = `
local failures = tonumber(redis.call('GET', KEYS[1]) or '0') + 1
if failures > tonumber(ARGV[1]) then return {failures, 0, 1} end
local bucket = KEYS[2] or KEYS[1]
local count = redis.call('INCR', bucket)
redis.call('PEXPIRE', bucket, ARGV[2], 'NX')
if KEYS[2] then return {failures - 1, count, 0} end
return {count, 0, 0}
`;

type AdmitCommand = (keys: number, ...args: Array<string | number>) => Promise<[number, number, number]>;

export class RedisRateLimiter implements RateLimitStore {
  private readonly admitScript: AdmitCommand;

  constructor(redis: Redis, private readonly prefix: string) {
    // EVALSHA, loaded once per connection (ioredis falls back to EVAL when the server lost the script).
    if (!('waypostAdmit' in redis)) redis.defineCommand('waypostAdmit', { lua: ADMIT });
    const command = (redis as unknown as { waypostAdmit: AdmitCommand }).waypostAdmit;
    this.admitScript = command.bind(redis);
  }

  async admit({ attempts, attemptLimit, key, windowMs, now }: AdmitRequest): Promise<Admission> {
    const start = windowStart(now, windowMs);
    const resetAt = start + windowMs;
    const bucket = (name: string) => `${this.prefix}rl:${name}:${start}`;
    const keys = key === null ? [bucket(attempts)] : [bucket(attempts), bucket(key)];
    const [failures, used, refused] = await this.admitScript(keys.length, ...keys, attemptLimit, windowMs + 5_000);
    return {
      attempts: { count: Number(failures), resetAt }, refused: refused === 1,
      used: key === null || refused === 1 ? null : { count: Number(used), resetAt },
    };
  }

  async close(): Promise<void> {}
}
