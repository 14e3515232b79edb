import { afterEach, describe, expect, it } from 'vitest';
import { parseList, type Item } from 'structured-headers';
import { DIALECTS } from '../helpers/db.js';
import { createApiKey } from '../../src/api/keys.js';
import { apiFixture, authOf, fakeClock, type ApiFixture } from './setup.js';

/**
 * Reads RateLimit-Policy / RateLimit as draft-ietf-httpapi-ratelimit-headers-10 defines them: a structured-field
 * List whose members are policy names (sf-string) with integer parameters. Any other syntax throws.
 */
function policies(header: string | string[] | number | undefined): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const member of parseList(String(header))) {
    const [name, params] = member as Item;
    if (typeof name !== 'string') throw new Error(`policy name ${String(name)} is not a string in ${String(header)}`);
    out[name] = Object.fromEntries(params);
  }
  return out;
}

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
    expect(ok.headers['ratelimit-policy']).toBe('"default";q=600;w=60');
    expect(policies(ok.headers['ratelimit-policy'])).toEqual({ default: { q: 600, w: 60 } });
    expect(policies(ok.headers.ratelimit)).toEqual({ default: { r: 599, t: 45 } });
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
    expect(policies(limited.headers.ratelimit)).toEqual({ default: { r: 0, t: 10 } });
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
    expect(policies(other.headers['ratelimit-policy'])).toEqual({ default: { q: 5, w: 60 } });
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
      // The per-address budget is a policy of its own, not the key's.
      expect(policies(res.headers['ratelimit-policy'])).toEqual({ 'failed-auth': { q: 3, w: 60 } });
      expect(policies(res.headers.ratelimit)).toEqual({ 'failed-auth': { r: 3 - i, t: 60 } });
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
