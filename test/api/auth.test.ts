import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { DIALECTS } from '../helpers/db.js';
import { createLogger } from '../../src/log.js';
import { testWaypost } from '../helpers/waypost.js';
import { apiRoot } from '../../src/config.js';
import { createApiKey, deleteApiKey, setApiKeyActive } from '../../src/api/keys.js';
import { createWaypost } from '../../src/sdk.js';
import { apiFixture, authOf, booking, fakeClock, type ApiFixture } from './setup.js';

describe.each(DIALECTS)('REST API authentication on %s', (dialect) => {
  let f: ApiFixture;
  const clock = fakeClock();
  beforeEach(async () => {
    f = await apiFixture(dialect, { clock });
    await f.wp.put('bookings', 1, booking());
  });
  afterEach(async () => f.wp.close());

  it('answers /test with the key id and its permissions', async () => {
    const res = await f.get('/test');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, key: f.key.id, permissions: f.key.permissions });
    expect(res.headers.etag).toBeTruthy();
    expect((await f.get('/test', { ...f.auth, 'if-none-match': res.headers.etag as string })).statusCode).toBe(304);
  });

  it('refuses missing, unknown, wrong and disabled credentials with distinct 401 codes', async () => {
    const codes = async (headers: Record<string, string>) => {
      const res = await f.get('/bookings', headers);
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toContain('application/problem+json');
      return res.json().code;
    };
    expect(await codes({})).toBe('missing_credentials');
    expect(await codes({ 'access-token': f.key.key })).toBe('missing_credentials');
    expect(await codes({ 'access-token': 'wpk_nope', 'access-secret': f.key.secret })).toBe('unknown_key');
    const nul = await f.get('/bookings?accesstoken=wpk%00x&accesssecret=y', {});
    expect([nul.statusCode, nul.json().code]).toEqual([401, 'unknown_key']);
    expect(await codes({ 'access-token': f.key.key, 'access-secret': `${f.key.secret}x` })).toBe('invalid_secret');
    await setApiKeyActive(f.wp.core, f.key.id, false);
    expect(await codes(f.auth)).toBe('key_disabled');
  });

  it('applies disable and re-enable on the very next request', async () => {
    expect((await f.get('/bookings')).statusCode).toBe(200);
    await setApiKeyActive(f.wp.core, f.key.id, false);
    expect((await f.get('/bookings')).json().code).toBe('key_disabled');
    await setApiKeyActive(f.wp.core, f.key.id, true);
    expect((await f.get('/bookings')).statusCode).toBe(200);
  });

  it('checks <resource>.list and <resource>.read separately', async () => {
    const reader = await createApiKey(f.wp.core, { label: 'reader', permissions: ['bookings.read'] });
    const list = await f.get('/bookings', authOf(reader));
    expect(list.statusCode).toBe(401);
    expect(list.json()).toMatchObject({ code: 'missing_permission' });
    expect(list.json().detail).toContain('bookings.list');
    expect((await f.get('/bookings/1', authOf(reader))).statusCode).toBe(200);
    expect((await f.get('/trips/1', authOf(reader))).json().code).toBe('missing_permission');
    // /test needs only an active key.
    expect((await f.get('/test', authOf(reader))).json().permissions).toEqual(['bookings.read']);
  });

  it('accepts credentials in the query string with a warning, and keeps them out of the logs', async () => {
    const res = await f.get(`/bookings?accesstoken=${f.key.key}&accesssecret=${encodeURIComponent(f.key.secret)}`, {});
    expect(res.statusCode).toBe(200);
    expect(res.headers.warning).toMatch(/^299 - ".*Access-Token.*"$/);
    expect(res.json()).toHaveLength(1);
    // The Link header never echoes the credentials.
    expect(String(res.headers.link)).not.toContain(f.key.secret);
    expect(String(res.headers.link)).not.toContain('accesstoken');
    expect((await f.get('/bookings')).headers.warning).toBeUndefined();
  });

  it('answers 405 with Allow for every non-GET method, and serves HEAD', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await f.app.inject({ method, url: `${f.root}/bookings/1`, headers: f.auth, payload: {} });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
      expect(res.json().code).toBe('method_not_allowed');
    }
    const head = await f.app.inject({ method: 'HEAD', url: `${f.root}/bookings/1`, headers: f.auth });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers.etag).toBeTruthy();
  });

  it('records last_used_at at most once a minute', async () => {
    await f.get('/test');
    await new Promise((r) => setTimeout(r, 50)); // the update is not on the answer's path
    const first = (await f.wp.core.db.selectFrom('api_keys').select('last_used_at').where('id', '=', f.key.id)
      .executeTakeFirstOrThrow()).last_used_at;
    expect(first).toBe(new Date(clock.now()).toISOString());
    clock.advance(30_000);
    await f.get('/test');
    await new Promise((r) => setTimeout(r, 50));
    const still = (await f.wp.core.db.selectFrom('api_keys').select('last_used_at').where('id', '=', f.key.id)
      .executeTakeFirstOrThrow()).last_used_at;
    expect(still).toBe(first);
    clock.advance(31_000);
    await f.get('/test');
    await new Promise((r) => setTimeout(r, 50));
    const later = (await f.wp.core.db.selectFrom('api_keys').select('last_used_at').where('id', '=', f.key.id)
      .executeTakeFirstOrThrow()).last_used_at;
    expect(later).toBe(new Date(clock.now()).toISOString());
  });

  it('stores only a hash of the secret', async () => {
    const row = await f.wp.core.db.selectFrom('api_keys').selectAll().where('id', '=', f.key.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(f.key.secret);
    expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('never writes the secret to the request log, even when it came in the query string', async () => {
    const sink = new PassThrough();
    let logged = '';
    sink.on('data', (d) => { logged += String(d); });
    const wp = await testWaypost({ dialect, logger: createLogger('info', sink) });
    try {
      const app = await wp.app();
      const k = await createApiKey(wp.core, { label: 'logged', permissions: ['bookings.list'] });
      const res = await app.inject(
        { url: `${apiRoot(wp.config)}/bookings?accesstoken=${k.key}&accesssecret=${encodeURIComponent(k.secret)}`,
        headers: { 'x-test': '1' } });
      expect(res.statusCode).toBe(200);
      await app.inject({ url: `${apiRoot(wp.config)}/bookings`, headers: authOf(k) });
      await new Promise((r) => setTimeout(r, 50));
      expect(logged).toContain('[REDACTED]');
      expect(logged).not.toContain(k.secret);
    } finally {
      await wp.close();
    }
  });
});

describe('REST API keys changed by another process on the same SQLite file', () => {
  it('refuses a key disabled or deleted by another process on the very next request, and serves it again once '
    + 're-enabled', async () => {
    const f = await apiFixture('sqlite');
    // A second Waypost on the same file stands for `waypost keys disable` run beside the server: its own connection.
    const other = await createWaypost({ env: {}, logger: createLogger('silent'),
      config: { databaseUrl: f.wp.config.databaseUrl } });
    try {
      await f.wp.put('bookings', 1, booking());
      expect((await f.get('/bookings')).statusCode).toBe(200);
      expect((await f.get('/bookings')).headers['x-cache']).toBe('HIT');
      await setApiKeyActive(other.core, f.key.id, false);
      expect((await f.get('/bookings')).json().code).toBe('key_disabled');
      await setApiKeyActive(other.core, f.key.id, true);
      expect((await f.get('/bookings')).statusCode).toBe(200);
      await deleteApiKey(other.core, f.key.id);
      expect((await f.get('/bookings')).json().code).toBe('unknown_key');
    } finally {
      await other.close();
      await f.wp.close();
    }
  });
});
