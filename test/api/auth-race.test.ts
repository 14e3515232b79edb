// The failed-authentication throttle under real concurrency: many wrong secrets in flight at once against running
// servers get at most the limit of 401 answers (the rest 429), in one process and across two processes sharing
// Redis; and a right secret sent among them is not let through once the limit is used up.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabaseUrl } from '../helpers/db.js';
import { hasRedis, REDIS_URL } from '../helpers/services.js';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { apiRoot, type Config } from '../../src/config.js';
import { createApiKey, type CreatedApiKey } from '../../src/api/keys.js';
import { manualClock } from '../helpers/clock.js';

const LIMIT = 30;
const MID_WINDOW = Date.parse('2026-03-01T10:00:30Z');
const redisUp = await hasRedis();

async function statusOf(url: string, headers: Record<string, string>): Promise<number> {
  const res = await fetch(url, { headers });
  await res.arrayBuffer();
  return res.status;
}

const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((t, s) => ({ ...t, [s]: (t[s] ?? 0) + 1 }), {});

describe.each(DIALECTS)('failed-authentication throttle under concurrency on %s', (dialect) => {
  const opened: Waypost[] = [];
  afterEach(async () => {
    for (const wp of opened.splice(0)) await wp.close();
  });

  async function servers(count: number, config: Partial<Config>): Promise<{ urls: string[]; key: CreatedApiKey }> {
    const databaseUrl = await freshDatabaseUrl(dialect);
    const urls: string[] = [];
    for (let i = 0; i < count; i++) {
      // A clock that stands still in the middle of a window: the counts are fixed windows aligned to the clock, and a
      // slow run that crossed a minute's end started counting again (CI once saw 49 answers of 401).
      const wp = await createWaypost({
        env: { WAYPOST_HOST_TOKEN: 'test-host-token' }, logger: createLogger('silent'),
        config: { ...config, databaseUrl, authFailLimit: LIMIT }, clock: manualClock(MID_WINDOW),
      });
      opened.push(wp);
      const base = await (await wp.app()).listen({ port: 0, host: '127.0.0.1' });
      urls.push(`${base}${apiRoot(wp.config)}/test`);
    }
    const key = await createApiKey(opened[0].core, { label: 'k', permissions: ['bookings.list'] });
    return { urls, key };
  }

  async function race(urls: string[], key: CreatedApiKey): Promise<Record<number, number>> {
    const wrong = { 'access-token': key.key, 'access-secret': 'wps_guess' };
    const statuses = await Promise.all(Array.from({ length: 200 }, (_, i) => statusOf(urls[i % urls.length], wrong)));
    return tally(statuses);
  }

  it(
    `one server: 200 wrong secrets at once get exactly ${LIMIT} answers of 401, then even the right one is 429`,
    async () => {
      const { urls, key } = await servers(1, {});
      expect(await race(urls, key)).toEqual({ 401: LIMIT, 429: 200 - LIMIT });
      expect(await statusOf(urls[0], { 'access-token': key.key, 'access-secret': key.secret })).toBe(429);
    },
  );

  it.skipIf(!redisUp)(`two servers sharing Redis: still exactly ${LIMIT} answers of 401 in all`, async () => {
    const namespace = `t${randomBytes(5).toString('hex')}`;
    const { urls, key } = await servers(2, { redisUrl: REDIS_URL, namespace });
    expect(await race(urls, key)).toEqual({ 401: LIMIT, 429: 200 - LIMIT });
    for (const url of urls) {
      expect(await statusOf(url, { 'access-token': key.key, 'access-secret': key.secret })).toBe(429);
    }
  });

  it('good requests in flight at once never use up the failure allowance', async () => {
    const { urls, key } = await servers(1, {});
    const good = { 'access-token': key.key, 'access-secret': key.secret };
    const statuses = await Promise.all(Array.from({ length: 100 }, () => statusOf(urls[0], good)));
    expect(tally(statuses)).toEqual({ 200: 100 });
    const wrong = { 'access-token': key.key, 'access-secret': 'wps_guess' };
    const after = await Promise.all(Array.from({ length: LIMIT }, () => statusOf(urls[0], wrong)));
    expect(tally(after)).toEqual({ 401: LIMIT });
  });
});
