// Wiring of the API capability's shared state: the response cache, the rate limiter and the usage counter, one
// set per Core. Memory stores by default; Redis stores when REDIS_URL is set (shared by every API process).
import type { Core } from '../core.js';
import { metricsOf } from '../metrics.js';
import { addReadinessDetail } from '../health.js';
import { MemoryCache, NoCache, type CacheStore } from './cache.js';
import { RedisCache } from './cache-redis.js';
import { ForeignWrites } from './foreign-writes.js';
import { KeyLookup } from './key-lookup.js';
import { affectedApiResources } from '../records/schemas.js';
import { MemoryRateLimiter, type RateLimitStore } from './rate-limit.js';
import { RedisRateLimiter } from './rate-limit-redis.js';
import { UsageCounter } from './usage.js';
import { CountedCache } from './cache-metrics.js';
import { FallbackCache, FallbackRateLimiter } from './redis-fallback.js';
import { connectRedis, RedisHealth } from './redis-health.js';

export interface ApiServices {
  cache: CountedCache;
  limiter: RateLimitStore;
  usage: UsageCounter;
  /** Polled once per API request: commits by other processes to the same SQLite file. */
  foreignWrites: ForeignWrites;
  /** The API keys, held in memory while their changes can be noticed. */
  keys: KeyLookup;
}

const services = new WeakMap<Core, ApiServices & { redis: RedisHealth | null }>();

/** The API's stores for this Core, created on first use. */
export function apiServices(core: Core): ApiServices {
  let s = services.get(core);
  if (!s) {
    const { config } = core;
    const metrics = metricsOf(core);
    const redis = config.redisUrl ? new RedisHealth(connectRedis(config.redisUrl), core.log, metrics) : null;
    const prefix = `${config.serviceName.toLowerCase()}:${config.namespace}:`;
    const foreignWrites = ForeignWrites.of(core);
    let cache: CacheStore;
    if (config.cacheTtlS === 0) cache = new NoCache();
    else if (redis) cache = new FallbackCache(new RedisCache(redis.redis, prefix), redis, metrics);
    else {
      // An import or a second process writing the same file invalidates the cached answers of what it changed, so
      // the API never serves data older than the last write.
      const memory = new MemoryCache(config.cacheMaxBytes, () => core.clock.now());
      foreignWrites.onChange((changed) => memory.invalidate(affectedApiResources(changed)));
      cache = memory;
    }
    const limiter = redis
      ? new FallbackRateLimiter(new RedisRateLimiter(redis.redis, prefix), redis, metrics)
      : new MemoryRateLimiter();
    const keys = new KeyLookup(core, foreignWrites);
    s = { cache: new CountedCache(cache, metrics), limiter, usage: new UsageCounter(core), foreignWrites, keys, redis };
    services.set(core, s);
  }
  return s;
}

/**
 * Called once by createWaypost(): any write through this Core (Host API, SDK, import) invalidates the cached
 * responses of the resources it changed, in this process and (with Redis) in every API process.
 */
export function installApi(core: Core): void {
  addReadinessDetail(core, 'redis', () => redisStatus(core));
  core.bus.on('records.changed', (resources) => {
    apiServices(core).cache.invalidate(resources)
      .catch((err) => core.log.error({ err, resources }, 'cache invalidation failed'));
  });
}

/** Redis as this process sees it (null: no REDIS_URL), for /readyz. */
function redisStatus(core: Core): 'up' | 'down' | null {
  if (!core.config.redisUrl) return null;
  apiServices(core);
  return services.get(core)!.redis?.status ?? null;
}

/** Flushes usage counts and closes the stores (Waypost.close()). */
export async function closeApi(core: Core): Promise<void> {
  const s = services.get(core);
  if (!s) return;
  services.delete(core);
  await s.usage.close();
  await s.keys.close();
  await s.cache.close();
  await s.limiter.close();
  s.redis?.close();
  await s.redis?.redis.quit().catch(() => {});
}
