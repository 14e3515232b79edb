// Redis-backed response cache for scale-out: every API process reads the same entries, and invalidation is one
// INCR of the resource's generation, visible to all processes at once.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ApiResource } from '../records/schemas.js';
import type { CacheLookup, CacheStore, CachedResponse } from './cache.js';

// Reads the generation and the entry under it in one round trip.
const GET_SCRIPT = `
local gen = redis.call('GET', KEYS[1]) or '0'
return {gen, redis.call('GET', ARGV[1] .. gen .. ':' .. ARGV[2])}
`;

// Stores an entry only under the generation still current: a response computed from data a write (or an erasure)
// has since replaced is never written back after that write's invalidation or purge.
const SET_SCRIPT = `
if (redis.call('GET', KEYS[1]) or '0') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
return 1
`;

/** SCAN's page: keys looked at per round trip while purging. */
const SCAN_COUNT = 1000;

// The compressed bodies travel as base64 in the entry's JSON (one GET per hit, as before).
type Stored = Omit<CachedResponse, 'br' | 'gzip'> & { br?: string; gzip?: string };

const toJson = ({ br, gzip, ...rest }: CachedResponse) => JSON.stringify({
  ...rest, ...(br && { br: br.toString('base64') }), ...(gzip && { gzip: gzip.toString('base64') }),
} satisfies Stored);

function fromJson(raw: string): CachedResponse {
  const { br, gzip, ...rest } = JSON.parse(raw) as Stored;
  return { ...rest, ...(br && { br: Buffer.from(br, 'base64') }), ...(gzip && { gzip: Buffer.from(gzip, 'base64') }) };
}

/**
 * A request's key (its path and query) as Redis names it: a hash, so that no search text (which can be a person's
 * name or e-mail) is kept in Redis's key space, where an erasure could not tell it from others.
 */
const hashed = (key: string) => createHash('sha256').update(key).digest('base64url');

export class RedisCache implements CacheStore {
  constructor(private readonly redis: Redis, private readonly prefix: string) {}

  private genKey(resource: string): string {
    return `${this.prefix}cache-gen:${resource}`;
  }

  async get(resource: ApiResource, key: string): Promise<CacheLookup> {
    const prefix = `${this.prefix}cache:${resource}:`;
    const [gen, raw] = (await this.redis.eval(GET_SCRIPT, 1, this.genKey(resource), prefix, hashed(key))) as [
      string, string | null,
    ];
    return { entry: raw ? fromJson(raw) : null, generation: Number(gen) };
  }

  async set(
    resource: ApiResource, key: string, generation: number, entry: CachedResponse, ttlS: number,
  ): Promise<void> {
    const entryKey = `${this.prefix}cache:${resource}:${generation}:${hashed(key)}`;
    await this.redis.eval(SET_SCRIPT, 2, this.genKey(resource), entryKey, String(generation), toJson(entry),
      String(ttlS));
  }

  async invalidate(resources: readonly string[]): Promise<void> {
    if (resources.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const r of resources) pipeline.incr(this.genKey(r));
    await pipeline.exec();
  }

  /** Every entry of these resources deleted (SCAN + UNLINK), after a new generation makes them unreachable. */
  async purge(resources: readonly string[]): Promise<void> {
    await this.invalidate(resources);
    for (const r of resources) {
      const match = `${`${this.prefix}cache:${r}:`.replace(/[[\]?*\\]/g, '\\$&')}*`; // the prefix taken literally
      let cursor = '0';
      do {
        const [next, keys] = await this.redis.scan(cursor, 'MATCH', match, 'COUNT', SCAN_COUNT);
        if (keys.length > 0) await this.redis.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
  }

  async close(): Promise<void> {}
}
