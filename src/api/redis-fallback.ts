// The Redis stores behind RedisHealth: while Redis is down the cache is bypassed (every answer computed, nothing
// stored) and rate limits are counted in this process's memory, so a client may get up to the limit once per
// process during an outage. Invalidations that could not reach Redis are replayed when it is back, before any
// cached answer is read again, so no answer older than this process's writes is served.
import type { ApiResource } from '../records/schemas.js';
import type { Metrics } from '../metrics.js';
import type { CacheLookup, CacheStore, CachedResponse } from './cache.js';
import type { RedisCache } from './cache-redis.js';
import type { RedisHealth } from './redis-health.js';
import { MemoryRateLimiter, type Admission, type AdmitRequest, type RateLimitStore } from './rate-limit.js';
import type { RedisRateLimiter } from './rate-limit-redis.js';

/** The generation of a lookup made without Redis: `set` stores nothing under it. */
const BYPASSED = -1;

function fallbacks(metrics: Metrics) {
  const counter = metrics.counter('waypost_redis_fallbacks_total',
    'Cache and rate-limit operations done without Redis because it was unavailable', ['operation']);
  // Present at 0 from the start, so rate() and dashboards see the series before the first outage.
  for (const operation of ['cache_get', 'cache_invalidate', 'rate_limit']) counter.inc({ operation }, 0);
  return counter;
}

export class FallbackCache implements CacheStore {
  private readonly unsent = new Set<string>();
  private readonly unpurged = new Set<string>();
  private readonly bypassed;

  constructor(private readonly redis: RedisCache, private readonly health: RedisHealth, metrics: Metrics) {
    this.bypassed = fallbacks(metrics);
    health.onRecover(async () => {
      if (this.unpurged.size > 0) {
        const purged = [...this.unpurged];
        await this.redis.purge(purged); // throws while Redis is still away: replayed at the next recovery
        for (const r of purged) this.unpurged.delete(r);
      }
      if (this.unsent.size === 0) return;
      const resources = [...this.unsent];
      await this.redis.invalidate(resources); // throws while Redis is still away: replayed at the next recovery
      for (const r of resources) this.unsent.delete(r);
    });
  }

  async get(resource: ApiResource, key: string): Promise<CacheLookup> {
    const found = await this.health.run(() => this.redis.get(resource, key));
    if (found) return found.value;
    this.bypassed.inc({ operation: 'cache_get' });
    return { entry: null, generation: BYPASSED };
  }

  async set(
    resource: ApiResource, key: string, generation: number, entry: CachedResponse, ttlS: number,
  ): Promise<void> {
    if (generation === BYPASSED || !(await this.health.usable())) return;
    await this.redis.set(resource, key, generation, entry, ttlS).catch((err: unknown) => this.health.failed(err));
  }

  async invalidate(resources: readonly string[]): Promise<void> {
    if (await this.health.run(() => this.redis.invalidate(resources))) return;
    this.bypassed.inc({ operation: 'cache_invalidate' });
    for (const r of resources) this.unsent.add(r);
  }

  async purge(resources: readonly string[]): Promise<void> {
    if (await this.health.run(() => this.redis.purge(resources))) return;
    this.bypassed.inc({ operation: 'cache_invalidate' });
    for (const r of resources) this.unpurged.add(r);
  }

  async close(): Promise<void> {
    await this.redis.close();
  }
}

export class FallbackRateLimiter implements RateLimitStore {
  private readonly memory = new MemoryRateLimiter();
  private readonly bypassed;

  constructor(private readonly redis: RedisRateLimiter, private readonly health: RedisHealth, metrics: Metrics) {
    this.bypassed = fallbacks(metrics);
  }

  async admit(request: AdmitRequest): Promise<Admission> {
    const decided = await this.health.run(() => this.redis.admit(request));
    if (decided) return decided.value;
    this.bypassed.inc({ operation: 'rate_limit' });
    return this.memory.admit(request);
  }

  async close(): Promise<void> {
    await this.memory.close();
    await this.redis.close();
  }
}
