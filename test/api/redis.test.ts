// Scale-out: two API processes (two Waypost instances on one database) share the cache and the rate-limit
// counters through Redis.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { DIALECTS, freshDatabaseUrl } from '../helpers/db.js';
import { hasRedis, REDIS_URL } from '../helpers/services.js';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { apiRoot } from '../../src/config.js';
import { createApiKey, type CreatedApiKey } from '../../src/api/keys.js';
import { authOf, fakeClock, trip } from './setup.js';
import type { Config } from '../../src/config.js';
import type { Clock } from '../../src/core.js';

const redisUp = await hasRedis();

describe.skipIf(!redisUp).each(DIALECTS)('REST API with Redis on %s', (dialect) => {
  const opened: Waypost[] = [];
  afterEach(async () => {
    for (const wp of opened.splice(0)) await wp.close();
  });

  async function twoProcesses(config: Partial<Config> = {},
    clock?: Clock): Promise<{ a: Waypost; b: Waypost; key: CreatedApiKey; namespace: string }> {
    const databaseUrl = await freshDatabaseUrl(dialect);
    const namespace = `t${randomBytes(5).toString('hex')}`; // unique Redis keys (and API root) per test
    const open = () => createWaypost({
      env: { WAYPOST_HOST_TOKEN: 'test-host-token' },
      logger: createLogger('silent'),
      clock,
      config: { ...config, databaseUrl, redisUrl: REDIS_URL, namespace },
    });
    const a = await open();
    const b = await open();
    opened.push(a, b);
    const key = await createApiKey(a.core, { label: 'shared', permissions: ['trips.list', 'trips.read'] });
    return { a, b, key, namespace };
  }

  // The cache write is not on the answer's path: wait (bounded) until Redis holds the entry, not a fixed time.
  async function cachedInRedis(namespace: string, resource = 'trips'): Promise<void> {
    const redis = new Redis(REDIS_URL);
    try {
      for (let i = 0; i < 200; i++) {
        if ((await redis.keys(`waypost:${namespace}:*cache:${resource}:*`)).length > 0) return;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error('the answer was never stored in Redis');
    } finally {
      await redis.quit();
    }
  }

  const get = async (wp: Waypost, path: string, key: CreatedApiKey) => (await wp.app())
    .inject({ url: `${apiRoot(wp.config)}${path}`, headers: authOf(key) });

  it('shares cached answers between processes, and a write in one invalidates them in the other', async () => {
    const { a, b, key, namespace } = await twoProcesses();
    await a.put('trips', 1, trip({ title: 'First' }));
    expect((await get(a, '/trips/1', key)).headers['x-cache']).toBe('MISS');
    await cachedInRedis(namespace);
    const fromB = await get(b, '/trips/1', key);
    expect(fromB.headers['x-cache']).toBe('HIT');
    expect(fromB.json().title).toBe('First');
    await a.put('trips', 1, trip({ title: 'Second' }));
    const afterWrite = await get(b, '/trips/1', key);
    expect(afterWrite.headers['x-cache']).toBe('MISS');
    expect(afterWrite.json().title).toBe('Second');
  });

  it('keys a query injectively in Redis too: a crafted value does not poison another query', async () => {
    const { a, b, namespace } = await twoProcesses();
    const key = await createApiKey(a.core, { label: 'customers', permissions: ['customers.list'] });
    await a.put('customers', 1, { email: 'a@b.c', first_name: 'Ana', last_name: 'Silva' });
    expect((await get(a, '/customers?email=a%40b.c%26order%3Dasc', key)).json()).toEqual([]);
    await cachedInRedis(namespace, 'customers');
    const real = await get(b, '/customers?email=a@b.c&order=asc', key);
    expect(real.headers['x-cache']).toBe('MISS');
    expect(real.json().map((c: { id: number }) => c.id)).toEqual([1]);
  });

  it('counts one rate limit across processes', async () => {
    const { a, b, key } = await twoProcesses({ rateLimit: 3 }, fakeClock());
    expect((await get(a, '/test', key)).statusCode).toBe(200);
    expect((await get(b, '/test', key)).statusCode).toBe(200);
    const third = await get(a, '/test', key);
    expect(third.headers['x-ratelimit-remaining']).toBe('0');
    const fourth = await get(b, '/test', key);
    expect(fourth.statusCode).toBe(429);
    expect(Number(fourth.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('keeps its keys under the service name and namespace, with expiry', async () => {
    const { a, key, namespace } = await twoProcesses();
    await a.put('trips', 1, trip());
    await get(a, '/trips', key);
    await cachedInRedis(namespace);
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`waypost:${namespace}:*`);
      expect(keys.some((k) => k.includes(':cache:trips:'))).toBe(true);
      expect(keys.some((k) => k.includes(':rl:key:'))).toBe(true);
      const cacheKey = keys.find((k) => k.includes(':cache:trips:'))!;
      const ttl = await redis.ttl(cacheKey);
      expect(ttl).toBeGreaterThan(3500);
      expect(ttl).toBeLessThanOrEqual(3600);
    } finally {
      await redis.quit();
    }
  });
});
