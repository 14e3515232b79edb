// An API key's calls over time by status class (the console's usage chart, issue 37): 2xx, 4xx and 429 counted per
// hour in the usage flush, answered per range from those counters.
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import type { KeyUsageSeries } from '../../src/webhooks/stats/views.js';
import { adminHeaders } from '../webhooks/manage/fixtures.js';
import { apiFixture, fakeClock, type ApiFixture } from './setup.js';

describe.each(DIALECTS)('API key usage series on %s', (dialect) => {
  let f: ApiFixture;
  afterEach(async () => f.wp.close());

  it('counts each key\'s calls per hour as 2xx, 4xx and 429', async () => {
    const clock = fakeClock(Date.parse('2026-03-01T10:00:50Z'));
    f = await apiFixture(dialect, { clock, config: { rateLimit: 3, rateLimitWindowS: 60 } });
    const auth = await adminHeaders(f.wp);
    const series = async (range = '24h') => {
      const res = await f.app.inject({ method: 'GET', url: `/admin/api/keys/${f.key.id}/usage/series?range=${range}`,
        headers: auth });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<KeyUsageSeries>();
    };
    expect((await f.get('/test')).statusCode).toBe(200);
    expect((await f.get('/bookings/123')).statusCode).toBe(404);
    expect((await f.get('/bookings?perpage=0')).statusCode).toBe(400);
    expect((await f.get('/test')).statusCode).toBe(429);
    expect((await f.get('/test')).statusCode).toBe(429);
    clock.advance(3_600_000); // the next hour, and a fresh rate-limit window
    expect((await f.get('/test')).statusCode).toBe(200);

    const day = await series();
    expect(day.totals).toEqual({ ok: 2, client_errors: 2, rate_limited: 2, server_errors: 0 });
    expect(day.points).toHaveLength(24);
    expect(day.points.at(-2)).toEqual({ start: '2026-03-01T10:00:00.000Z', ok: 1, client_errors: 2, rate_limited: 2,
      server_errors: 0 });
    expect(day.points.at(-1)).toMatchObject({ start: '2026-03-01T11:00:00.000Z', ok: 1 });
    expect((await series('30d')).totals).toEqual(day.totals);

    const bad = await f.app.inject({ method: 'GET', url: `/admin/api/keys/${f.key.id}/usage/series?range=week`,
      headers: auth });
    expect(bad.statusCode).toBe(400);
    const missing = await f.app.inject({ method: 'GET', url: '/admin/api/keys/key_nope/usage/series', headers: auth });
    expect(missing.statusCode).toBe(404);
  });
});
