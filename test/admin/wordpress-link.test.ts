// The host token is not a key to every console account: a WordPress sign-in link for the e-mail of an account with a
// password is refused (and does not sign in) until that account's owner, signed in, allows that WordPress user in
// the console; every link issued is logged with who asked for it, never with its token.
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import type { Clock } from '../../src/core.js';
import { createLogger } from '../../src/log.js';
import { createAdmin } from '../../src/admin/accounts.js';
import { ensureAdminToken } from '../../src/admin/token.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, sessionCookieOf, signIn, withAdmin } from './helpers.js';

const SITE = 'https://shop.example.com';
const OWNER_WP = { site_url: SITE, wp_user_id: 1 };

describe.each(DIALECTS)('WordPress sign-in and password accounts (%s)', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let logs: string[];
  let now: number;
  const clock: Clock = { now: () => now };

  beforeEach(async () => {
    now = Date.parse('2026-03-01T10:00:00Z');
    logs = [];
    const sink = new Writable({ write(chunk, _enc, done) { logs.push(String(chunk)); done(); } });
    wp = await testWaypost({ dialect, clock, logger: createLogger('info', sink) });
    app = await wp.app();
    await withAdmin(wp);
  });
  afterEach(async () => wp.close());

  const issue = (email: string, user = OWNER_WP) => app.inject({
    method: 'POST', url: '/host/v1/sign-in-links', headers: HOST_AUTH, remoteAddress: '10.9.8.7',
    payload: { email, name: 'Olga Owner', ...user },
  });
  const open = (url: string) => {
    const u = new URL(url);
    return app.inject({ method: 'GET', url: `${u.pathname}${u.search}` });
  };
  const sessions = () => wp.core.db.selectFrom('admin_sessions').selectAll().execute();
  const linkLogs = () => logs.map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => String(l.msg).startsWith('admin sign-in link'));

  it('refuses a link for the e-mail of an account with a password, so the host token does not sign in as it',
    async () => {
      const res = await issue(ADMIN_EMAIL.toUpperCase());
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'account_not_linked' });
      expect(res.json().detail).toMatch(/not linked to WordPress user #1 on https:\/\/shop\.example\.com/);
      expect(res.json().detail).toMatch(/sign in to the Waypost console .* allow this WordPress user/);
      expect(await wp.core.db.selectFrom('admin_sign_in_links').selectAll().execute()).toEqual([]);
      expect(await sessions()).toEqual([]);
      expect(linkLogs()).toEqual([expect.objectContaining({
        level: 40, email: ADMIN_EMAIL, wp_user_id: 1, site_url: SITE, ip: '10.9.8.7',
      })]);

      // A password account made while a link for its e-mail was in flight is not opened by it either.
      const inFlight = await issue('late@example.com');
      expect(inFlight.statusCode).toBe(201);
      await createAdmin(wp.core, 'late@example.com', 'another good password');
      const late = await open(inFlight.json().url);
      expect(late.statusCode).toBe(403);
      expect(late.body).toContain('This account is not linked to your WordPress user');
      expect(late.headers['set-cookie']).toBeUndefined();
      expect(await sessions()).toEqual([]);
    });

  it('logs every link issued with the e-mail, the WordPress user and the address, never the token', async () => {
    const res = await issue('maria@example.com', { site_url: SITE, wp_user_id: 12 });
    expect(res.statusCode).toBe(201);
    const token = new URL(res.json().url).searchParams.get('token')!;
    expect(linkLogs()).toEqual([expect.objectContaining({
      level: 30, msg: 'admin sign-in link issued', email: 'maria@example.com', wp_user_id: 12, site_url: SITE,
      ip: '10.9.8.7',
    })]);
    expect((await open(res.json().url)).statusCode).toBe(303);
    expect(logs.join('')).not.toContain(token);
  });

  it('opens the account once its owner allows that WordPress user in the console, and stops when they remove it',
    async () => {
      expect((await issue(ADMIN_EMAIL)).statusCode).toBe(403);
      const owner = await signIn(app);
      const account = await app.inject({ method: 'GET', url: '/admin/api/account', headers: { cookie: owner.cookie } });
      expect(account.json()).toEqual({
        email: ADMIN_EMAIL, name: null, created_via: null, wordpress_link: null,
        wordpress_link_request: { ...OWNER_WP, name: 'Olga Owner', requested_at: new Date(now).toISOString() },
      });

      const allow = (headers: Record<string, string>, payload: object = OWNER_WP) =>
        app.inject({ method: 'PUT', url: '/admin/api/account/wordpress-link', headers, payload });
      // Like every console write: the CSRF token, and a person's session (the admin token is nobody's account).
      expect((await allow({ cookie: owner.cookie })).json().code).toBe('csrf_token_invalid');
      const adminToken = (await ensureAdminToken(wp.core))!;
      const byToken = await allow({ authorization: `Bearer ${adminToken}` });
      expect(byToken.statusCode).toBe(403);
      expect(byToken.json().code).toBe('session_required');
      expect((await allow(owner.headers, { site_url: SITE, wp_user_id: 'x' })).json())
        .toMatchObject({ status: 400, field: 'wp_user_id' });
      expect((await issue(ADMIN_EMAIL)).statusCode).toBe(403);

      const allowed = await allow(owner.headers);
      expect(allowed.statusCode).toBe(200);
      expect(allowed.json()).toMatchObject({ wordpress_link: OWNER_WP, wordpress_link_request: null });
      const link = await issue(ADMIN_EMAIL);
      expect(link.statusCode).toBe(201);
      const opened = await open(link.json().url);
      expect(opened.statusCode).toBe(303);
      const me = await app.inject({
        method: 'GET', url: '/admin/api/session', headers: { cookie: sessionCookieOf(opened.headers['set-cookie']) },
      });
      expect(me.json().email).toBe(ADMIN_EMAIL);
      // Only that WordPress user; the password still works.
      expect((await issue(ADMIN_EMAIL, { site_url: SITE, wp_user_id: 2 })).statusCode).toBe(403);
      await signIn(app, ADMIN_EMAIL, ADMIN_PASSWORD);

      const removed = await app.inject({
        method: 'DELETE', url: '/admin/api/account/wordpress-link', headers: owner.headers,
      });
      expect(removed.json()).toMatchObject({ wordpress_link: null });
      expect((await issue(ADMIN_EMAIL)).statusCode).toBe(403);
    });

  it('binds an account WordPress made before links named their user to the first user that opens it', async () => {
    await wp.core.db.insertInto('admins').values({
      id: 'adm_legacy', email: 'old@example.com', password_hash: '!', created_at: new Date(now).toISOString(),
      last_login_at: null, created_via: 'wordpress', name: null, wp_site_url: null, wp_user_id: null,
      wp_link_request: null,
    }).execute();
    const first = await issue('old@example.com', { site_url: SITE, wp_user_id: 5 });
    expect((await open(first.json().url)).statusCode).toBe(303);
    expect((await issue('old@example.com', { site_url: SITE, wp_user_id: 6 })).statusCode).toBe(403);
    expect((await issue('old@example.com', { site_url: SITE, wp_user_id: 5 })).statusCode).toBe(201);
  });
});
