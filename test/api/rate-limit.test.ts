import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { createApiKey } from '../../src/api/keys.js';
import { apiFixture, authOf, fakeClock, type ApiFixture } from './setup.js';

describe.each(DIALECTS)('REST API rate limit on %s', (dialect) => {
  let f: ApiFixture;
  afterEach(async () => f.wp.close());

  it('sends the X-RateLimit-* and IETF RateLimit headers on every answer', async () => {
    const clock = fakeClock(Date.parse('2026-03-01T10:00:15Z'));
    f = await apiFixture(dialect, { clock });
    const ok = await f.get('/test');
    expect(ok.headers['x-ratelimit-limit']).toBe('600');
    expect(ok.headers['x-ratelimit-remaining']).toBe('599');
    expect(ok.headers['x-ratelimit-reset']).toBe(String(Date.parse('2026-03-01T10:01:00Z') / 1000));
    expect(ok.headers['ratelimit-policy']).toBe('600;w=60');
    expect(ok.headers.ratelimit).toBe('limit=600, remaining=599, reset=45');
    const notFound = await f.get('/bookings/123');
    expect(notFound.statusCode).toBe(404);
    expect(notFound.headers['x-ratelimit-remaining']).toBe('598');
    const bad = await f.get('/bookings?perpage=0');
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['x-ratelimit-remaining']).toBe('597');
  });

  it('answers 429 with Retry-After once a key uses up its window, and resets with the next window', async () => {
    const clock = fakeClock(Date.parse('2026-03-01T10:00:50Z'));
    f = await apiFixture(dialect, { clock, config: { rateLimit: 3, rateLimitWindowS: 60 } });
    for (let i = 0; i < 3; i++) expect((await f.get('/test')).statusCode).toBe(200);
    const limited = await f.get('/test');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().code).toBe('rate_limited');
    expect(limited.headers['retry-after']).toBe('10');
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(limited.headers.ratelimit).toBe('limit=3, remaining=0, reset=10');
    // Cached answers are limited too.
    expect((await f.get('/bookings')).statusCode).toBe(429);
    clock.advance(10_000);
    const fresh = await f.get('/test');
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers['x-ratelimit-remaining']).toBe('2');
  });

  it('counts each key separately and honours a per-key limit', async () => {
    f = await apiFixture(dialect, { clock: fakeClock(), config: { rateLimit: 2 } });
    const generous = await createApiKey(f.wp.core, { label: 'partner', permissions: ['bookings.list'], rateLimit: 5 });
    for (let i = 0; i < 2; i++) await f.get('/test');
    expect((await f.get('/test')).statusCode).toBe(429);
    const other = await f.get('/test', authOf(generous));
    expect(other.statusCode).toBe(200);
    expect(other.headers['x-ratelimit-limit']).toBe('5');
    expect(other.headers['ratelimit-policy']).toBe('5;w=60');
    for (let i = 0; i < 4; i++) expect((await f.get('/test', authOf(generous))).statusCode).toBe(200);
    expect((await f.get('/test', authOf(generous))).statusCode).toBe(429);
  });

  it('limits failed authentications per client address, even for a later good secret', async () => {
    const clock = fakeClock(Date.parse('2026-03-01T10:00:00Z'));
    f = await apiFixture(dialect, { clock, config: { authFailLimit: 3 } });
    const wrong = { 'access-token': f.key.key, 'access-secret': 'guess' };
    for (let i = 1; i <= 3; i++) {
      const res = await f.get('/test', wrong);
      expect(res.statusCode).toBe(401);
      expect(res.headers['x-ratelimit-limit']).toBe('3');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(3 - i));
    }
    const blocked = await f.get('/test', wrong);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.headers['retry-after']).toBe('60');
    expect((await f.get('/test')).statusCode).toBe(429);
    // Another address is not affected.
    expect((await f.get('/test', f.auth, { remoteAddress: '10.9.8.7' })).statusCode).toBe(200);
    clock.advance(60_000);
    expect((await f.get('/test')).statusCode).toBe(200);
  });
});
