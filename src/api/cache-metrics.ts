// Counts the response cache's hits and misses per resource (a lookup bypassed while Redis is down is a miss).
import type { ApiResource } from '../records/schemas.js';
import type { Metrics } from '../metrics.js';
import type { CacheLookup, CacheStore, CachedResponse } from './cache.js';

export class CountedCache implements CacheStore {
  private readonly hits;
  private readonly misses;

  constructor(private readonly inner: CacheStore, metrics: Metrics) {
    this.hits = metrics.counter('waypost_api_cache_hits_total', 'REST API answers sent from the cache', ['resource']);
    this.misses = metrics.counter('waypost_api_cache_misses_total',
      'REST API answers computed because the cache had none', ['resource']);
  }

  async get(resource: ApiResource, key: string): Promise<CacheLookup> {
    const lookup = await this.inner.get(resource, key);
    (lookup.entry ? this.hits : this.misses).inc({ resource });
    return lookup;
  }

  set(resource: ApiResource, key: string, generation: number, entry: CachedResponse, ttlS: number): Promise<void> {
    return this.inner.set(resource, key, generation, entry, ttlS);
  }

  invalidate(resources: readonly string[]): Promise<void> {
    return this.inner.invalidate(resources);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
