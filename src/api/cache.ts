// Server-side response cache. Stores share one tiny interface (memory / Redis). Every entry belongs to one
// resource; a host write bumps that resource's generation, and `get` hands back the generation it saw so that a
// response computed from pre-write data is stored under the old generation, where no one will read it.
import { LRUCache } from 'lru-cache';
import type { ApiResource } from '../records/schemas.js';

export interface CachedResponse {
  body: string;
  etag: string;
  /** Data-dependent headers (X-Total-Count, X-Total-Pages, Link). */
  headers: Record<string, string>;
  /** The body compressed (src/api/compression.ts), when it is over 1 KB: a hit compresses nothing. */
  br?: Buffer;
  gzip?: Buffer;
}

export interface CacheLookup {
  entry: CachedResponse | null;
  /** Pass back to `set`: the resource generation this lookup saw. */
  generation: number;
}

export interface CacheStore {
  get(resource: ApiResource, key: string): Promise<CacheLookup>;
  set(resource: ApiResource, key: string, generation: number, entry: CachedResponse, ttlS: number): Promise<void>;
  invalidate(resources: readonly string[]): Promise<void>;
  /** Invalidates and deletes every entry of these resources (an erasure: no copy of a person's data may stay). */
  purge(resources: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

const sizeOf = (e: CachedResponse) => 200 + e.body.length * 2 + e.etag.length * 2 + JSON.stringify(e.headers).length * 2
  + (e.br?.length ?? 0) + (e.gzip?.length ?? 0);

/** In-process LRU bounded in bytes (WAYPOST_CACHE_MAX_BYTES). */
export class MemoryCache implements CacheStore {
  private readonly lru: LRUCache<string, CachedResponse>;
  private readonly generations = new Map<string, number>();

  constructor(maxBytes: number, now: () => number) {
    this.lru = new LRUCache<string, CachedResponse>({
      maxSize: Math.max(maxBytes, 1), sizeCalculation: sizeOf, ttlAutopurge: false, ttlResolution: 0, perf: { now },
    });
  }

  private gen(resource: string): number {
    return this.generations.get(resource) ?? 0;
  }

  async get(resource: ApiResource, key: string): Promise<CacheLookup> {
    const generation = this.gen(resource);
    return { entry: this.lru.get(`${resource}:${generation}:${key}`) ?? null, generation };
  }

  async set(
    resource: ApiResource, key: string, generation: number, entry: CachedResponse, ttlS: number,
  ): Promise<void> {
    if (generation !== this.gen(resource)) return; // a write happened while this response was computed
    if (sizeOf(entry) > this.lru.maxSize) return;
    this.lru.set(`${resource}:${generation}:${key}`, entry, { ttl: ttlS * 1000 });
  }

  async invalidate(resources: readonly string[]): Promise<void> {
    // O(1): old-generation entries are never read again, so the LRU evicts them first when it needs room.
    for (const r of resources) this.generations.set(r, this.gen(r) + 1);
  }

  async purge(resources: readonly string[]): Promise<void> {
    await this.invalidate(resources);
    const prefixes = resources.map((r) => `${r}:`);
    for (const key of [...this.lru.keys()]) if (prefixes.some((p) => key.startsWith(p))) this.lru.delete(key);
  }

  async close(): Promise<void> {
    this.lru.clear();
  }
}

/** WAYPOST_CACHE_TTL_S=0: every request is a miss and nothing is stored. */
export class NoCache implements CacheStore {
  async get(): Promise<CacheLookup> {
    return { entry: null, generation: 0 };
  }
  async set(): Promise<void> {}
  async invalidate(): Promise<void> {}
  async purge(): Promise<void> {}
  async close(): Promise<void> {}
}
