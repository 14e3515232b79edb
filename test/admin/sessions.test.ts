// Console sign-in: sessions in an HttpOnly SameSite cookie, CSRF on state changes, sign-out, bearer tokens kept.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../helpers/db.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import type { Clock } from '../../src/core.js';
import { rotateAdminToken } from '../../src/admin/token.js';
import { SESSION_IDLE_MS } from '../../src/admin/sessions.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, openAdminApp, sessionCookieOf, signIn, withAdmin } from './helpers.js';

describe.each(DIALECTS)('admin sessions (%s)', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let now: number;
  const clock: Clock = { now: () => now };

  beforeEach(async () => {
    now = Date.parse('2026-03-01T10:00:00Z');
    ({ wp, app } = await openAdminApp(dialect, clock, { withAdmin: true }));
  });
  afterEach(async () => wp.close());

  it('signs in with the right password and sets an HttpOnly, SameSite=Strict cookie scoped to /admin', async () => {
    const res = await app.inject({ method: 'POST', url: '/admin/api/session',
      payload: { email: 'OPS@example.com', password: ADMIN_PASSWORD } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ email: ADMIN_EMAIL, csrf_token: expect.any(String) });
    const header = String(res.headers['set-cookie']);
    expect(header).toMatch(/^waypost_session=[A-Za-z0-9_-]{40,};/);
    expect(header).toMatch(/HttpOnly/);
    expect(header).toMatch(/SameSite=Strict/);
    expect(header).toMatch(/Path=\/admin/);
    expect(header).not.toMatch(/Secure/); // http:// base URL
    const me = await app.inject({ method: 'GET', url: '/admin/api/session',
      headers: { cookie: sessionCookieOf(res.headers['set-cookie']) } });
    expect(me.json()).toEqual({ email: ADMIN_EMAIL, csrf_token: res.json().csrf_token, kind: 'session' });
  });

  it('refuses a wrong password or an unknown e-mail with the same 401', async () => {
    const wrong = await app.inject({ method: 'POST', url: '/admin/api/session',
      payload: { email: ADMIN_EMAIL, password: 'not the password' } });
    const unknown = await app.inject({ method: 'POST', url: '/admin/api/session',
      payload: { email: 'nobody@example.com', password: ADMIN_PASSWORD } });
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: 'invalid_credentials', detail: 'The e-mail or password is incorrect.' });
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('names the missing field when the form is incomplete', async () => {
    const res = await app.inject({ method: 'POST', url: '/admin/api/session', payload: { email: ADMIN_EMAIL } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'missing_password', field: 'password' });
  });

  it('refuses an e-mail with a NUL or another control character as a 400 naming it (PostgreSQL: was a 500)',
    async () => {
      for (const email of ['ops\u0000@example.com', 'ops@example.com\u0000', 'ops@exa\nmple.com']) {
        const res = await app.inject({ method: 'POST', url: '/admin/api/session', payload: { email, password: 'x' } });
        expect(res.statusCode, JSON.stringify(email)).toBe(400);
        expect(res.json()).toMatchObject({ code: 'invalid_email', field: 'email' });
      }
    });

  it('lets a session read without CSRF but rejects a state change without the X-CSRF-Token header (403)', async () => {
    const s = await signIn(app);
    expect((await app.inject({ method: 'GET', url: '/admin/api/settings', headers: { cookie: s.cookie } })).statusCode)
      .toBe(200);
    const missing = await app.inject({ method: 'PUT', url: '/admin/api/settings', headers: { cookie: s.cookie },
      payload: { log_retention_days: 7 } });
    expect(missing.statusCode).toBe(403);
    expect(missing.json().code).toBe('csrf_token_invalid');
    const wrong = await app.inject({ method: 'PUT', url: '/admin/api/settings',
      headers: { cookie: s.cookie, 'x-csrf-token': 'guess' }, payload: { log_retention_days: 7 } });
    expect(wrong.statusCode).toBe(403);
    const ok = await app.inject({ method: 'PUT', url: '/admin/api/settings', headers: s.headers,
      payload: { log_retention_days: 7 } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().log_retention_days).toBe(7);
  });

  it('binds the CSRF token to its session: another session\'s token is refused', async () => {
    const a = await signIn(app);
    const b = await signIn(app);
    expect(a.csrf).not.toBe(b.csrf);
    const res = await app.inject({ method: 'PUT', url: '/admin/api/settings',
      headers: { cookie: a.cookie, 'x-csrf-token': b.csrf }, payload: { log_retention_days: 9 } });
    expect(res.statusCode).toBe(403);
  });

  it('signs out: the cookie is cleared and the old session no longer works', async () => {
    const s = await signIn(app);
    const out = await app.inject({ method: 'DELETE', url: '/admin/api/session', headers: s.headers });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/waypost_session=;/);
    const after = await app.inject({ method: 'GET', url: '/admin/api/settings', headers: { cookie: s.cookie } });
    expect(after.statusCode).toBe(401);
    expect(after.json().code).toBe('session_expired');
  });

  it('ends a session left idle for 12 hours', async () => {
    const s = await signIn(app);
    now += SESSION_IDLE_MS - 60_000;
    expect((await app.inject({ method: 'GET', url: '/admin/api/settings', headers: { cookie: s.cookie } })).statusCode)
      .toBe(200);
    now += SESSION_IDLE_MS - 60_000; // still alive: the previous request counted as activity
    expect((await app.inject({ method: 'GET', url: '/admin/api/settings', headers: { cookie: s.cookie } })).statusCode)
      .toBe(200);
    now += SESSION_IDLE_MS + 1;
    expect((await app.inject({ method: 'GET', url: '/admin/api/settings', headers: { cookie: s.cookie } })).statusCode)
      .toBe(401);
  });

  it('refuses requests with no credentials and with a forged cookie', async () => {
    const none = await app.inject({ method: 'GET', url: '/admin/api/settings' });
    expect(none.statusCode).toBe(401);
    expect(none.json().code).toBe('admin_auth_required');
    const forged = await app.inject({ method: 'GET', url: '/admin/api/settings',
      headers: { cookie: 'waypost_session=forged' } });
    expect(forged.statusCode).toBe(401);
  });

  it('keeps the bearer admin token working for automation, with no CSRF header needed', async () => {
    const token = await rotateAdminToken(wp.core);
    const res = await app.inject({ method: 'PUT', url: '/admin/api/settings',
      headers: { authorization: `Bearer ${token}` }, payload: { log_retention_days: 14 } });
    expect(res.statusCode).toBe(200);
    expect(res.json().log_retention_days).toBe(14);
    const bad = await app.inject({ method: 'GET', url: '/admin/api/settings',
      headers: { authorization: 'Bearer wpa_wrong' } });
    expect(bad.statusCode).toBe(401);
  });

  it('marks the cookie Secure when the base URL is https', async () => {
    const secure = await testWaypost({ dialect, clock, config: { baseUrl: 'https://waypost.example.com' } });
    try {
      await withAdmin(secure);
      const res = await (await secure.app())
        .inject({ method: 'POST', url: '/admin/api/session',
        payload: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
      expect(String(res.headers['set-cookie'])).toMatch(/; Secure/);
    } finally {
      await secure.close();
    }
  });
});
