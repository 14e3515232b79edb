// Compressed answers over real HTTP (undici's request does not decode, so the bytes on the wire are checked):
// API JSON over 1 KB in brotli or gzip as the client accepts, the compressed bytes kept in the answer cache
// (memory and Redis), Vary, ETags per encoding with 304, and the console's and the reference page's files sent
// from the build's precompressed copies.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Redis } from 'ioredis';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { hasRedis, REDIS_URL } from '../helpers/services.js';
import { testWaypost } from '../helpers/waypost.js';
import { apiRoot, type Config } from '../../src/config.js';
import { createApiKey } from '../../src/api/keys.js';
import { CONSOLE_DIST, buildReferenceAssets, REFERENCE_DIST } from '../../src/build/precompress.js';
import { buildConsole } from '../console/browser.js';
import type { Waypost } from '../../src/sdk.js';
import { authOf, trip } from './setup.js';
import { compress } from '../../src/api/compression.js';

const redisUp = await hasRedis();
const CACHES: Array<[string, Partial<Config>]> = [['memory', {}]];
if (redisUp) CACHES.push(['redis', { redisUrl: REDIS_URL }]);

interface Answer { status: number; headers: Record<string, string>; bytes: Buffer }

async function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await request(url, { headers });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  const flat = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)]));
  return { status: res.statusCode, headers: flat, bytes };
}

/**
 * GETs until the answer comes from the cache: a missed answer is stored after it is sent (src/api/respond.ts), so on a
 * loaded machine the next request can arrive before the store to Redis is done, and miss again.
 */
async function cachedGet(url: string, headers: Record<string, string>): Promise<Answer> {
  const end = Date.now() + 10_000;
  for (;;) {
    const answer = await get(url, headers);
    if (answer.headers['x-cache'] === 'HIT' || Date.now() > end) return answer;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const decode = (a: Answer) => {
  const enc = a.headers['content-encoding'];
  const raw = enc === 'br' ? brotliDecompressSync(a.bytes) : enc === 'gzip' ? gunzipSync(a.bytes) : a.bytes;
  return JSON.parse(raw.toString('utf8')) as unknown;
};

describe.each(DIALECTS)('compressed REST API answers over HTTP on %s', (dialect) => {
  describe.each(CACHES)('with the %s cache', (_name, cacheConfig) => {
    let wp: Waypost;
    let base: string;
    let auth: Record<string, string>;
    afterEach(async () => wp?.close());

    async function start(config: Partial<Config> = {}) {
      // A namespace of its own: Redis keys (and the API root) are not shared with another test.
      const namespace = `c${randomBytes(5).toString('hex')}`;
      wp = await testWaypost({ dialect, config: { port: 0, namespace, ...cacheConfig, ...config } });
      for (let i = 1; i <= 20; i++) await wp.put('trips', i, trip({ title: `Douro Valley Walk number ${i}` }));
      const { url } = await wp.serve('api');
      base = `${url}${apiRoot(wp.config)}`;
      auth = authOf(await createApiKey(wp.core, { label: 'test', permissions: ['trips.list', 'trips.read'] }));
    }

    it('sends a list over 1 KB in brotli or gzip as accepted, decoding to the same JSON, with Vary', async () => {
      await start();
      const plain = await get(`${base}/trips?perpage=20`, auth);
      expect(plain.bytes.length).toBeGreaterThan(1024);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toMatch(/accept-encoding/i);
      const br = await cachedGet(`${base}/trips?perpage=20`, { ...auth, 'accept-encoding': 'gzip, deflate, br' });
      expect([br.headers['content-encoding'], br.headers['x-cache']]).toEqual(['br', 'HIT']);
      expect(br.headers.vary).toMatch(/accept-encoding/i);
      expect(br.bytes.length).toBeLessThan(plain.bytes.length / 3);
      expect(Number(br.headers['content-length'])).toBe(br.bytes.length);
      expect(decode(br)).toEqual(JSON.parse(plain.bytes.toString()));
      const gz = await get(`${base}/trips?perpage=20`, { ...auth, 'accept-encoding': 'gzip' });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(decode(gz)).toEqual(JSON.parse(plain.bytes.toString()));
      // Refused or unknown encodings get the JSON as it is.
      const refused = await get(`${base}/trips?perpage=20`, { ...auth, 'accept-encoding': 'br;q=0, gzip;q=0, deflate' },
      );
      expect(refused.headers['content-encoding']).toBeUndefined();
      expect(refused.bytes.equals(plain.bytes)).toBe(true);
      // The data-dependent headers ride along.
      expect(br.headers['x-total-count']).toBe('20');
      expect(br.headers.link).toBe(plain.headers.link);
    });

    it('serves the first (missed) answer compressed too, and the same bytes from the cache after', async () => {
      await start();
      const ae = { ...auth, 'accept-encoding': 'br' };
      const miss = await get(`${base}/trips?perpage=20&order=desc`, ae);
      const hit = await cachedGet(`${base}/trips?perpage=20&order=desc`, ae);
      expect([miss.headers['x-cache'], hit.headers['x-cache']]).toEqual(['MISS', 'HIT']);
      expect(miss.headers['content-encoding']).toBe('br');
      expect(hit.bytes.equals(miss.bytes)).toBe(true);
    });

    it('gives each encoding its own ETag, and answers 304 to any of them until the data changes', async () => {
      await start();
      const plain = await get(`${base}/trips?perpage=20`, auth);
      const br = await get(`${base}/trips?perpage=20`, { ...auth, 'accept-encoding': 'br' });
      const gz = await get(`${base}/trips?perpage=20`, { ...auth, 'accept-encoding': 'gzip' });
      const tags = [plain, br, gz].map((a) => a.headers.etag);
      expect(new Set(tags).size).toBe(3);
      for (const tag of tags) {
        for (const ae of ['br', 'gzip', 'identity']) {
          const again = await get(`${base}/trips?perpage=20`, { ...auth, 'accept-encoding': ae, 'if-none-match': tag });
          expect(again.status, `${tag} with ${ae}`).toBe(304);
          expect(again.bytes.length).toBe(0);
          expect(again.headers.vary).toMatch(/accept-encoding/i);
        }
      }
      // The 304 names the representation the client would get.
      const ifMatch = (tag: string) => ({ ...auth, 'accept-encoding': 'br', 'if-none-match': tag });
      const notModified = await get(`${base}/trips?perpage=20`, ifMatch(tags[0]));
      expect(notModified.headers.etag).toBe(br.headers.etag);
      await wp.put('trips', 1, trip({ title: 'Changed' }));
      const changed = await get(`${base}/trips?perpage=20`, ifMatch(tags[1]));
      expect(changed.status).toBe(200);
      expect((decode(changed) as Array<{ id: number; title: string }>).find((t) => t.id === 1)?.title).toBe('Changed');
    });

    it('sends a body of 1 KB or less as it is', async () => {
      await start();
      const one = await get(`${base}/trips/1`, { ...auth, 'accept-encoding': 'gzip, br' });
      expect(one.status).toBe(200);
      expect(one.bytes.length).toBeLessThanOrEqual(1024);
      expect(one.headers['content-encoding']).toBeUndefined();
      expect(one.headers.vary).toMatch(/accept-encoding/i);
      expect((JSON.parse(one.bytes.toString()) as { id: number }).id).toBe(1);
    });

    it('compresses with the cache off too (WAYPOST_CACHE_TTL_S=0)', async () => {
      await start({ cacheTtlS: 0 });
      const gz = await get(`${base}/trips?perpage=20`, { ...auth, 'accept-encoding': 'gzip' });
      expect([gz.headers['content-encoding'], gz.headers['x-cache']]).toEqual(['gzip', 'MISS']);
      expect((decode(gz) as unknown[]).length).toBe(20);
    });
  });
});

describe('compressed bodies kept in the memory cache', () => {
  it('hold exactly their bytes, not zlib\'s working chunk (the cache\'s byte limit is what it holds)', async () => {
    const body = JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ id: i, email: `guest${i}@example.com` })));
    const { br, gzip } = await compress(body);
    for (const b of [br!, gzip!]) {
      expect(b.length).toBeLessThan(body.length / 3);
      expect(b.buffer.byteLength).toBe(b.length);
    }
    expect(brotliDecompressSync(br!).toString()).toBe(body);
    expect(gunzipSync(gzip!).toString()).toBe(body);
  });
});

describe.skipIf(!redisUp)('the Redis answer cache', () => {
  it('keeps the compressed bytes beside the JSON, so a hit from another process compresses nothing', async () => {
    const namespace = `c${randomBytes(5).toString('hex')}`;
    const wp = await testWaypost({ config: { port: 0, namespace, redisUrl: REDIS_URL } });
    const redis = new Redis(REDIS_URL);
    try {
      for (let i = 1; i <= 20; i++) await wp.put('trips', i, trip({ title: `Walk ${i}` }));
      const { url } = await wp.serve('api');
      const auth = authOf(await createApiKey(wp.core, { label: 'test', permissions: ['trips.list'] }));
      const plain = await get(`${url}${apiRoot(wp.config)}/trips?perpage=20`, auth);
      let keys: string[] = [];
      for (let i = 0; i < 50 && keys.length === 0; i++) {
        keys = await redis.keys(`*${namespace}*cache:trips:*`);
        if (keys.length === 0) await new Promise((r) => setTimeout(r, 20)); // the store is not on the answer's path
      }
      expect(keys).toHaveLength(1);
      const stored = JSON.parse((await redis.get(keys[0]))!) as { body: string; br: string; gzip: string };
      expect(stored.body).toBe(plain.bytes.toString());
      expect(brotliDecompressSync(Buffer.from(stored.br, 'base64')).toString()).toBe(stored.body);
      expect(gunzipSync(Buffer.from(stored.gzip, 'base64')).toString()).toBe(stored.body);
    } finally {
      redis.disconnect();
      await wp.close();
    }
  });
});

describe('precompressed files', () => {
  let wp: Waypost;
  let url: string;
  beforeAll(async () => {
    // What `npm run build` does: the console built, its files and the reference bundle compressed beside them
    // (buildConsole holds the lock the browser suites build under, so none empties web/dist meanwhile).
    buildConsole();
    buildReferenceAssets();
    wp = await testWaypost({ config: { port: 0 } });
    url = (await wp.serve('api')).url!;
  }, 120_000);
  afterAll(async () => wp?.close());

  it('sends the console\'s script and the reference bundle as the .br or .gz file the build wrote', async () => {
    const index = (await get(`${url}/admin/`)).bytes.toString();
    const script = /src="\/admin\/(assets\/[^"]+\.js)"/.exec(index)![1];
    const files: Array<[string, string]> = [
      [`${url}/admin/${script}`, join(CONSOLE_DIST, script)],
      [`${url}${apiRoot(wp.config)}/docs/static/swagger-ui-bundle.js`, join(REFERENCE_DIST, 'swagger-ui-bundle.js')],
    ];
    for (const [address, file] of files) {
      const br = await get(address, { 'accept-encoding': 'gzip, deflate, br' });
      expect([br.status, br.headers['content-encoding']]).toEqual([200, 'br']);
      expect(br.bytes.equals(readFileSync(`${file}.br`))).toBe(true);
      expect(br.headers['content-type']).toContain('javascript');
      expect(br.headers.vary).toMatch(/accept-encoding/i);
      const gz = await get(address, { 'accept-encoding': 'gzip' });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gz.bytes.equals(readFileSync(`${file}.gz`))).toBe(true);
      const plain = await get(address);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.bytes.equals(readFileSync(file))).toBe(true);
      expect(new Set([br, gz, plain].map((a) => a.headers.etag)).size).toBe(3);
    }
  });

  it('sends the OpenAPI document the reference page reads compressed, once compressed for every request', async () => {
    const address = `${url}${apiRoot(wp.config)}/docs/json`;
    const plain = await get(address);
    const br = await get(address, { 'accept-encoding': 'gzip, br' });
    expect([br.headers['content-encoding'], br.headers.vary]).toEqual(['br', 'Accept-Encoding']);
    expect(br.bytes.length).toBeLessThan(plain.bytes.length / 5);
    expect(decode(br)).toEqual(JSON.parse(plain.bytes.toString()));
    expect((await get(address, { 'accept-encoding': 'gzip, br' })).bytes.equals(br.bytes)).toBe(true);
  });
});
