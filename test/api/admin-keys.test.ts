import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../helpers/db.js';
import { testWaypost } from '../helpers/waypost.js';
import { rotateAdminToken } from '../../src/admin/token.js';
import { apiRoot } from '../../src/config.js';
import type { Waypost } from '../../src/sdk.js';
import { fakeClock } from './setup.js';

describe.each(DIALECTS)('admin API for API keys on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let admin: Record<string, string>;
  const clock = fakeClock(Date.parse('2026-03-05T12:00:00Z'));
  beforeEach(async () => {
    wp = await testWaypost({ dialect, clock, config: { rateLimit: 2 } });
    app = await wp.app();
    admin = { authorization: `Bearer ${await rotateAdminToken(wp.core)}` };
  });
  afterEach(async () => wp.close());

  const create = (payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/admin/api/keys',
    headers: admin, payload });

  it('creates a key (key and secret shown once), lists it with a key prefix only, disables, enables and deletes it',
    async () => {
    const res = await create({ label: 'Website', permissions: ['bookings.list', 'bookings.read'], rate_limit: 100 });
    expect(res.statusCode).toBe(201);
    const k = res.json();
    expect(k).toMatchObject({ label: 'Website', permissions: ['bookings.list', 'bookings.read'], active: true,
      rate_limit: 100, last_used_at: null });
    expect(k.secret).toMatch(/^wps_/);
    const list = await app.inject({ url: '/admin/api/keys', headers: admin });
    expect(list.body).not.toContain(k.secret);
    expect(list.body).not.toContain(k.key);
    expect(list.json().keys)
      .toEqual([expect.objectContaining({ id: k.id, key: `${k.key.slice(0, 12)}…`, active: true })]);
    expect(list.json().keys[0].secret).toBeUndefined();
    expect(list.json().keys[0].secret_hash).toBeUndefined();

    const disabled = await app.inject({ method: 'POST', url: `/admin/api/keys/${k.id}/disable`, headers: admin });
    expect(disabled.json()).toMatchObject({ id: k.id, active: false });
    const api = await app.inject({ url: `${apiRoot(wp.config)}/bookings`,
      headers: { 'access-token': k.key, 'access-secret': k.secret } });
    expect(api.json().code).toBe('key_disabled');
    expect((await app.inject({ method: 'POST', url: `/admin/api/keys/${k.id}/enable`, headers: admin })).json().active)
      .toBe(true);
    expect((await app.inject({ method: 'DELETE', url: `/admin/api/keys/${k.id}`, headers: admin })).statusCode)
      .toBe(204);
    expect((await app.inject({ method: 'DELETE', url: `/admin/api/keys/${k.id}`, headers: admin })).statusCode)
      .toBe(404);
    expect((await app.inject({ url: '/admin/api/keys', headers: admin })).json().keys).toEqual([]);
  });

  it('rejects bad input with 400 naming the field, and requires admin authentication', async () => {
    const unknown = await create({ label: 'x', permissions: ['bookings.delete'] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().detail).toContain('bookings.delete');
    expect((await create({ label: '', permissions: ['trips.list'] })).statusCode).toBe(400);
    expect((await create({ label: 'a\u0000b', permissions: ['trips.list'] })).statusCode).toBe(400);
    expect((await create({ label: 'x', permissions: ['trips.list'], rate_limit: 0 })).statusCode).toBe(400);
    expect((await app.inject({ url: '/admin/api/keys' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/admin/api/keys',
      payload: { label: 'x', permissions: ['trips.list'] } })).statusCode).toBe(401);
  });

  it('reports per-key usage per day: requests, 4xx and 429', async () => {
    const k = (await create({ label: 'Counted', permissions: ['trips.list'] })).json();
    const auth = { 'access-token': k.key, 'access-secret': k.secret };
    const root = apiRoot(wp.config);
    await app.inject({ url: `${root}/trips`, headers: auth }); // 200
    await app.inject({ url: `${root}/trips/1`, headers: auth }); // 401 missing_permission (counts as 4xx)
    await app.inject({ url: `${root}/trips`, headers: auth }); // 429 (limit 2)
    await app.inject({ url: `${root}/trips`, headers: { 'access-token': k.key, 'access-secret': 'wrong' } }); // 401
    const usage = (await app.inject({ url: '/admin/api/keys/usage', headers: admin })).json();
    const mine = usage.keys.find((u: { key_id: string }) => u.key_id === k.id);
    expect(mine.days).toEqual([{ day: '2026-03-05', requests: 4, client_errors: 3, rate_limited: 1 }]);
    expect(mine.totals).toEqual({ requests: 4, client_errors: 3, rate_limited: 1 });
    // Counts are kept in memory and added to the table on flush; a second read adds nothing twice.
    const again = (await app.inject({ url: '/admin/api/keys/usage', headers: admin })).json();
    expect(again.keys.find((u: { key_id: string }) => u.key_id === k.id).totals.requests).toBe(4);
  });
  it('edits a key\'s label, permissions and rate limit; the next API request sees the change at once', async () => {
    const k = (await create({ label: 'Site', permissions: ['trips.list'] })).json();
    const auth = { 'access-token': k.key, 'access-secret': k.secret };
    const root = apiRoot(wp.config);
    expect((await app.inject({ url: `${root}/bookings`, headers: auth })).statusCode).toBe(401); // no bookings.list
    const patch = (payload: Record<string, unknown>, id = k.id) => app.inject({ method: 'PATCH',
      url: `/admin/api/keys/${id}`, headers: admin, payload });
    const res = await patch({ label: 'Shop', permissions: ['bookings.list', 'trips.list'], rate_limit: 5 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: k.id, label: 'Shop', permissions: ['trips.list', 'bookings.list'].sort(),
      rate_limit: 5 });
    expect(res.json().key).toBe(`${k.key.slice(0, 12)}…`);
    // The key was held in memory (SQLite) with the old permissions and the default limit of 2; both changed.
    for (let i = 0; i < 4; i++) expect((await app.inject({ url: `${root}/bookings`, headers: auth })).statusCode)
      .toBe(200);
    expect((await patch({ rate_limit: null })).json()).toMatchObject({ label: 'Shop', rate_limit: null });
    // back to the default 2
    expect((await app.inject({ url: `${root}/bookings`, headers: auth })).statusCode).toBe(429);

    const zero = await patch({ rate_limit: 0 });
    expect(zero.statusCode).toBe(400);
    expect(zero.json())
      .toMatchObject({ field: 'rate_limit', detail: 'rate_limit: must be at least 1 request per window' });
    expect((await patch({ permissions: ['bookings.delete'] })).statusCode).toBe(400);
    expect((await patch({ label: '' })).json().detail).toBe('label: must not be empty');
    expect((await patch({})).statusCode).toBe(400);
    expect((await patch({ label: 'x' }, 'key_unknown')).statusCode).toBe(404);
    expect((await app.inject({ method: 'PATCH', url: `/admin/api/keys/${k.id}`, payload: { label: 'x' } })).statusCode)
      .toBe(401);
  });

  it('says the default limit and window, and words a rate limit of 0 as a person would', async () => {
    const list = (await app.inject({ url: '/admin/api/keys', headers: admin })).json();
    expect(list.rate_limit).toEqual({ default: 2, window_s: wp.config.rateLimitWindowS });
    const res = await create({ label: 'x', permissions: ['trips.list'], rate_limit: 0 });
    expect(res.json())
      .toMatchObject({ status: 400, field: 'rate_limit', detail: 'rate_limit: must be at least 1 request per window' });
    expect((await create({ label: 'x', permissions: [] })).json().detail).toBe('permissions: choose at least one');
  });
});
