// Counts the response cache's hits and misses per resource (a lookup bypassed while Redis is down is a miss), of
// the requests that passed authentication.
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

  /** Not counted yet: a lookup is made beside authentication, and counts only if the request passes (`used`). */
  get(resource: ApiResource, key: string): Promise<CacheLookup> {
    return this.inner.get(resource, key);
  }

  /** Counts a lookup whose outcome answers a request: a hit sent, or a miss computed. */
  used(resource: ApiResource, lookup: CacheLookup): void {
    (lookup.entry ? this.hits : this.misses).inc({ resource });
  }

  set(resource: ApiResource, key: string, generation: number, entry: CachedResponse, ttlS: number): Promise<void> {
    return this.inner.set(resource, key, generation, entry, ttlS);
  }

  invalidate(resources: readonly string[]): Promise<void> {
    return this.inner.invalidate(resources);
  }

  purge(resources: readonly string[]): Promise<void> {
    return this.inner.purge(resources);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
