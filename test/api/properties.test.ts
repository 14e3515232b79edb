// Properties: whatever a client sends in the query string or the headers, the API answers 2xx/3xx/4xx, never 5xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DIALECTS } from '../helpers/db.js';
import { apiFixture, booking, payment, trip, type ApiFixture } from './setup.js';

const PATHS = ['/bookings', '/trips', '/customers', '/payments', '/bookings/1', '/trips/1', '/test', '/nothing'];
const NAMES = ['perpage', 'page', 'after', 'search', 'orderby', 'order', 'modified_after', 'status', 'customer_id',
  'trip_id', 'booking_id', 'email', 'accesstoken', 'accesssecret'];
const VALUES = ['', '0', '1', '-1', '100', '101', '1e3', '9007199254740993', 'abc', 'desc', 'asc', 'id', 'updated_at',
  'title', '2026-01-01T00:00:00Z', '2026-02-30T00:00:00Z', 'null', '%', '"', "'", '\\', '%00', '%FF',
  'WyJpZCIsImRlc2MiLDMsM10', '[]', '{}'];

const part = fc.oneof(fc.constantFrom(...NAMES), fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }));
const value = fc.oneof(fc.constantFrom(...VALUES), fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }));
// Raw query strings, encoded or not (malformed percent-escapes included).
const rawQuery = fc.array(fc.tuple(part, value, fc.boolean()), { maxLength: 6 }).map((pairs) =>
  pairs.map(([k, v, encode]) => (encode ? `${encodeURIComponent(k)}=${encodeURIComponent(v)}`
    : `${k}=${v}`.replace(/[#\s]/g, ''))).join('&'));
const headerValue = fc.oneof(fc.constantFrom('', 'wpk_x', '*', 'W/"x"', '"abc"'), fc.string({ maxLength: 60 })
  .filter((s) => /^[\x20-\x7e]*$/.test(s)));

describe.each(DIALECTS)('REST API never answers 5xx on %s', (dialect) => {
  let f: ApiFixture;
  beforeAll(async () => {
    // Limits out of the way, so every run reaches validation and the data instead of a 429.
    f = await apiFixture(dialect, { config: { rateLimit: 1_000_000, authFailLimit: 1_000_000 } });
    await f.wp.put('trips', 1, trip());
    await f.wp.put('bookings', 1, booking());
    await f.wp.put('payments', 1, payment());
  });
  afterAll(async () => f.wp.close());

  it('for random query strings', async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom(...PATHS), rawQuery, async (path, qs) => {
      const res = await f.app.inject({ method: 'GET', url: `${f.root}${path}?${qs}`, headers: f.auth });
      expect(res.statusCode, `${path}?${qs} → ${res.body}`).toBeLessThan(500);
      if (res.statusCode >= 400) expect(res.headers['content-type']).toContain('application/problem+json');
    }), { numRuns: 300 });
  });

  it('for random credential, conditional and other header values', async () => {
    await fc.assert(fc.asyncProperty(
      fc.constantFrom(...PATHS), fc.option(headerValue), fc.option(headerValue), fc.option(headerValue),
        fc.constantFrom('GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS'),
      async (path, token, secret, ifNoneMatch, method) => {
        const headers: Record<string, string> = {};
        headers['access-token'] = token ?? f.key.key;
        if (secret !== null) headers['access-secret'] = secret; else headers['access-secret'] = f.key.secret;
        if (ifNoneMatch !== null) headers['if-none-match'] = ifNoneMatch;
        const res = await f.app.inject({ method: method as 'GET', url: `${f.root}${path}`, headers });
        expect(res.statusCode, `${method} ${path} ${JSON.stringify(headers)} → ${res.body}`).toBeLessThan(500);
      }), { numRuns: 300 });
  });
});
