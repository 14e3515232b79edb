// Redis-backed response cache for scale-out: every API process reads the same entries, and invalidation is one
// INCR of the resource's generation, visible to all processes at once.
import type { Redis } from 'ioredis';
import type { ApiResource } from '../records/schemas.js';
import type { CacheLookup, CacheStore, CachedResponse } from './cache.js';

// Reads the generation and the entry under it in one round trip.
const GET_SCRIPT = `
local gen = redis.call('GET', KEYS[1]) or '0'
return {gen, redis.call('GET', ARGV[1] .. gen .. ':' .. ARGV[2])}
`;

// The compressed bodies travel as base64 in the entry's JSON (one GET per hit, as before).
type Stored = Omit<CachedResponse, 'br' | 'gzip'> & { br?: string; gzip?: string };

const toJson = ({ br, gzip, ...rest }: CachedResponse) => JSON.stringify({
  ...rest, ...(br && { br: br.toString('base64') }), ...(gzip && { gzip: gzip.toString('base64') }),
} satisfies Stored);

function fromJson(raw: string): CachedResponse {
  const { br, gzip, ...rest } = JSON.parse(raw) as Stored;
  return { ...rest, ...(br && { br: Buffer.from(br, 'base64') }), ...(gzip && { gzip: Buffer.from(gzip, 'base64') }) };
}

export class RedisCache implements CacheStore {
  constructor(private readonly redis: Redis, private readonly prefix: string) {}

  private genKey(resource: string): string {
    return `${this.prefix}cache-gen:${resource}`;
  }

  async get(resource: ApiResource, key: string): Promise<CacheLookup> {
    const prefix = `${this.prefix}cache:${resource}:`;
    const [gen, raw] = (await this.redis.eval(GET_SCRIPT, 1, this.genKey(resource), prefix, key)) as [
      string, string | null,
    ];
    return { entry: raw ? fromJson(raw) : null, generation: Number(gen) };
  }

  async set(
    resource: ApiResource, key: string, generation: number, entry: CachedResponse, ttlS: number,
  ): Promise<void> {
    await this.redis.set(`${this.prefix}cache:${resource}:${generation}:${key}`, toJson(entry), 'EX', ttlS);
  }

  async invalidate(resources: readonly string[]): Promise<void> {
    if (resources.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const r of resources) pipeline.incr(this.genKey(r));
    await pipeline.exec();
  }

  async close(): Promise<void> {}
}
