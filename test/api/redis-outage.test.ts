// Redis goes away and comes back: a private redis-server is SIGKILLed under two API processes (two Waypost
// instances on one database) and restarted on the same port. The API keeps answering (cache bypassed, rate limits
// per process), says so once in the log, in /readyz and in /metrics, and uses Redis again by itself.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { DIALECTS, freshDatabaseUrl } from '../helpers/db.js';
import { freePort } from '../helpers/services.js';
import { hasRedisServer, sleep, startRedis, until } from '../helpers/processes.js';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { apiRoot } from '../../src/config.js';
import { createApiKey, type CreatedApiKey } from '../../src/api/keys.js';
import { authOf, fakeClock, trip } from './setup.js';

const METRICS_TOKEN = 'metrics-token-0123456789';
const redisServer = hasRedisServer('the Redis outage suite');

/** Log lines kept in memory, to count how often something was said. */
function logSink() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { stream, count: (text: string) => lines.filter((l) => String(l.msg).includes(text)).length };
}

describe.runIf(redisServer)('Redis stopped and restarted under two API processes', () => {
  let redis: ChildProcess | null = null;
  const opened: Waypost[] = [];
  afterAll(async () => {
    redis?.kill('SIGKILL');
    for (const wp of opened) await wp.close();
  });

  it('keeps answering, reports the outage once and uses Redis again when it is back', { timeout: 90_000 }, async () => {
    const port = await freePort();
    redis = startRedis(port);
    const redisUrl = `redis://127.0.0.1:${port}`;
    const databaseUrl = await freshDatabaseUrl(DIALECTS.at(-1)!);
    const namespace = `t${randomBytes(5).toString('hex')}`;
    const clock = fakeClock(); // one rate-limit window for the whole test
    const logA = logSink();
    const open = (stream?: Writable) => createWaypost({
      env: { WAYPOST_HOST_TOKEN: 'test-host-token', WAYPOST_METRICS_TOKEN: METRICS_TOKEN },
      logger: stream ? createLogger('info', stream) : createLogger('silent'),
      clock,
      config: { databaseUrl, redisUrl, namespace, rateLimit: 3 },
    });
    const a = await open(logA.stream);
    opened.push(a);
    const b = await open();
    opened.push(b);
    const apps = { a: await a.app(), b: await b.app() };
    const reader = await createApiKey(a.core, {
      label: 'reader', permissions: ['trips.list', 'trips.read'], rateLimit: 1000, // never limited here
    });
    const get = (wp: 'a' | 'b', path: string, key: CreatedApiKey) =>
      apps[wp].inject({ url: `${apiRoot(a.config)}${path}`, headers: authOf(key) });
    const readyz = async (wp: 'a' | 'b') => (await apps[wp].inject('/readyz'));
    const metric = async (wp: 'a' | 'b', name: string) => {
      const text = (await apps[wp].inject({ url: '/metrics',
        headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body;
      const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
      return line === undefined ? undefined : Number(line.split(' ').at(-1));
    };
    /** Three requests of one new key through a, b, a, then a fourth through b: which statuses they got. */
    const rateLimitRun = async () => {
      const key = await createApiKey(a.core, { label: 'limited', permissions: ['trips.list'] });
      const out: number[] = [];
      for (const wp of ['a', 'b', 'a', 'b'] as const) out.push((await get(wp, '/test', key)).statusCode);
      return out;
    };

    // Redis up: one cache and one count for both processes.
    await until('redis to accept connections', async () => (await readyz('a')).json().redis === 'up');
    await a.put('trips', 1, trip({ title: 'First' }));
    expect((await get('a', '/trips/1', reader)).headers['x-cache']).toBe('MISS');
    await sleep(50); // the store is not on the answer's path
    expect((await get('b', '/trips/1', reader)).headers['x-cache']).toBe('HIT');
    expect(await rateLimitRun()).toEqual([200, 200, 200, 429]);
    expect(await metric('a', 'waypost_redis_up')).toBe(1);

    // Redis killed: answers stay 200 without waiting for it.
    redis.kill('SIGKILL');
    await new Promise((r) => redis!.once('exit', r));
    const outage = [];
    for (let i = 0; i < 3; i++) {
      for (const wp of ['a', 'b'] as const) {
        const res = await Promise.race([get(wp, '/trips/1', reader), sleep(5_000).then(() => null)]);
        outage.push(res ? `${res.statusCode} ${res.headers['x-cache']}` : 'no answer within 5 s');
      }
    }
    expect(outage).toEqual(Array(6).fill('200 MISS'));
    // A write during the outage is seen at once by both processes (nothing is cached meanwhile).
    await a.put('trips', 1, trip({ title: 'Second' }));
    expect((await get('b', '/trips/1', reader)).json().title).toBe('Second');
    // Each process counts the limit alone: 3 requests through each are allowed, the 4th through one is refused.
    const key = await createApiKey(a.core, { label: 'limited during outage', permissions: ['trips.list'] });
    const perProcess: number[] = [];
    for (const wp of ['a', 'a', 'a', 'b', 'b', 'b', 'a'] as const) {
      perProcess.push((await get(wp, '/test', key)).statusCode);
    }
    expect(perProcess).toEqual([200, 200, 200, 200, 200, 200, 429]);
    await sleep(1_500); // several reconnect attempts fail meanwhile: still one log line
    expect(logA.count('redis unavailable')).toBe(1);
    const down = await readyz('a');
    expect(down.statusCode).toBe(200); // ready: the database is what readiness needs
    expect(down.json()).toMatchObject({ status: 'ready', redis: 'down' });
    expect(await metric('a', 'waypost_redis_up')).toBe(0);
    expect(await metric('b', 'waypost_redis_up')).toBe(0);
    expect(await metric('a', 'waypost_redis_fallbacks_total{operation="cache_get"}')).toBeGreaterThanOrEqual(3);

    // Redis back on the same port: both processes use it again by themselves.
    redis = startRedis(port);
    await until('process a to use redis again', async () => (await readyz('a')).json().redis === 'up');
    await until('process b to use redis again', async () => (await readyz('b')).json().redis === 'up');
    expect(logA.count('redis available again')).toBe(1);
    expect(logA.count('redis unavailable')).toBe(1);
    expect(await metric('a', 'waypost_redis_up')).toBe(1);
    const miss = await get('a', '/trips/1', reader);
    expect(miss.headers['x-cache']).toBe('MISS');
    await sleep(50);
    const hit = await get('b', '/trips/1', reader);
    expect(hit.headers['x-cache']).toBe('HIT');
    expect(hit.json().title).toBe('Second');
    expect(await rateLimitRun()).toEqual([200, 200, 200, 429]);
  });

  it('replays the invalidations of writes made while Redis did not answer, so no stale answer is served after',
    { timeout: 60_000 }, async () => {
      const port = await freePort();
      const paused = startRedis(port);
      const redisUrl = `redis://127.0.0.1:${port}`;
      const databaseUrl = await freshDatabaseUrl(DIALECTS.at(-1)!);
      const namespace = `t${randomBytes(5).toString('hex')}`;
      const logA = logSink();
      const open = (stream?: Writable) => createWaypost({
        env: { WAYPOST_HOST_TOKEN: 'test-host-token' },
        logger: stream ? createLogger('info', stream) : createLogger('silent'),
        config: { databaseUrl, redisUrl, namespace },
      });
      const a = await open(logA.stream);
      opened.push(a);
      const b = await open();
      opened.push(b);
      const admin = new Redis(redisUrl);
      try {
        const reader = await createApiKey(a.core, { label: 'reader', permissions: ['trips.read'] });
        const get = async (wp: Waypost, path: string) =>
          (await wp.app()).inject({ url: `${apiRoot(a.config)}${path}`, headers: authOf(reader) });
        await a.put('trips', 1, trip({ title: 'First' }));
        expect((await get(a, '/trips/1')).headers['x-cache']).toBe('MISS');
        await sleep(50);
        expect((await get(b, '/trips/1')).headers['x-cache']).toBe('HIT');

        // Redis stops answering on open connections (no close, no reconnect): commands time out after 1 s.
        await admin.call('CLIENT', 'PAUSE', '3000', 'ALL');
        const during = await get(a, '/trips/1');
        expect(during.statusCode).toBe(200);
        expect(logA.count('redis unavailable')).toBe(1);
        await a.put('trips', 1, trip({ title: 'Second' })); // its invalidation cannot reach Redis now

        await until('process a to use redis again', async () => (await (await a.app()).inject('/readyz')).json()
          .redis === 'up');
        expect(logA.count('redis available again')).toBe(1);
        // b never noticed the outage; its cached 'First' is gone because a replayed the invalidation.
        const after = await get(b, '/trips/1');
        expect(after.headers['x-cache']).toBe('MISS');
        expect(after.json().title).toBe('Second');
      } finally {
        admin.disconnect();
        paused.kill('SIGKILL');
      }
    });
});
