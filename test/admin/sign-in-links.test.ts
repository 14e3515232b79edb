// Signing in from WordPress: POST /host/v1/sign-in-links makes a single-use link valid 60 s; opening it starts a
// console session with no password, making the account on first use, bound to the WordPress user it was asked for.
// (Password accounts and linking them from the console: wordpress-link.test.ts.)
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import type { Clock } from '../../src/core.js';
import { SIGN_IN_LINK_TTL_MS } from '../../src/admin/sign-in-links.js';
import { openAdminApp, sessionCookieOf } from './helpers.js';

const SITE = 'https://shop.example.com';

describe.each(DIALECTS)('sign-in links from WordPress (%s)', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let now: number;
  const clock: Clock = { now: () => now };

  beforeEach(async () => {
    now = Date.parse('2026-03-01T10:00:00Z');
    ({ wp, app } = await openAdminApp(dialect, clock));
  });
  afterEach(async () => wp.close());

  const issue = (payload: unknown, headers: Record<string, string> = HOST_AUTH) =>
    app.inject({ method: 'POST', url: '/host/v1/sign-in-links', headers, payload: payload as object });
  const linkFor = async (email: string, name?: string, wpUserId = 7, siteUrl = SITE) => {
    const res = await issue({ email, name, wp_user_id: wpUserId, site_url: siteUrl });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { url: string; expires_at: string };
  };
  /** Opens the link as the browser would: the path and query of its URL. */
  const open = (url: string, method: 'GET' | 'HEAD' = 'GET') => {
    const u = new URL(url);
    return app.inject({ method, url: `${u.pathname}${u.search}` });
  };
  const admins = () => wp.core.db.selectFrom('admins').selectAll().orderBy('created_at').execute();

  it('makes a link that signs the browser in once, creating the account on first use', async () => {
    const answer = await issue({ email: 'Maria@Example.com', name: 'Maria Costa', wp_user_id: 7,
      site_url: 'https://Shop.Example.com/' });
    expect(answer.statusCode).toBe(201);
    // The answer is a credential: no browser or proxy keeps it.
    expect(answer.headers['cache-control']).toBe('no-store');
    const link = answer.json() as { url: string; expires_at: string };
    expect(link.url).toMatch(new RegExp(`^${wp.config.baseUrl}/admin/sign-in-link\\?token=[A-Za-z0-9_-]{43}$`));
    expect(link.expires_at).toBe(new Date(now + 60_000).toISOString());
    // Only a hash of the token is stored.
    const token = new URL(link.url).searchParams.get('token')!;
    const rows = await wp.core.db.selectFrom('admin_sign_in_links').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(await admins()).toEqual([]);

    const res = await open(link.url);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/admin/');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    const header = String(res.headers['set-cookie']);
    expect(header).toMatch(/HttpOnly/);
    expect(header).toMatch(/SameSite=Strict/);
    expect(header).toMatch(/Path=\/admin/);
    const cookie = sessionCookieOf(res.headers['set-cookie']);
    const me = await app.inject({ method: 'GET', url: '/admin/api/session', headers: { cookie } });
    expect(me.json()).toMatchObject({ email: 'maria@example.com', kind: 'session', csrf_token: expect.any(String) });
    // The console works with that session (a read and a CSRF-protected write).
    const csrf = me.json().csrf_token as string;
    const write = await app.inject({
      method: 'PUT', url: '/admin/api/settings', headers: { cookie, 'x-csrf-token': csrf },
      payload: { log_retention_days: 9 },
    });
    expect(write.statusCode).toBe(200);

    const [admin, ...others] = await admins();
    expect(others).toEqual([]);
    expect(admin).toMatchObject({
      email: 'maria@example.com', name: 'Maria Costa', created_via: 'wordpress', wp_site_url: SITE,
    });
    expect(Number(admin!.wp_user_id)).toBe(7);
    expect(admin!.last_login_at).toBe(new Date(now).toISOString());
    // No usable password until one is set: signing in with any password is the usual 401.
    const guess = await app.inject({
      method: 'POST', url: '/admin/api/session',
      payload: { email: 'maria@example.com', password: admin!.password_hash },
    });
    expect(guess.statusCode).toBe(401);
    expect(guess.json().code).toBe('invalid_credentials');

    // Used: refused with a page telling to start again from WordPress.
    const again = await open(link.url);
    expect(again.statusCode).toBe(401);
    expect(again.headers['content-type']).toMatch(/^text\/html/);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect(again.body).toContain('This sign-in link no longer works');
    expect(again.body).toContain('Go back to WordPress');
    expect(await wp.core.db.selectFrom('admin_sign_in_links').selectAll().execute()).toEqual([]);
  });

  it('expires after 60 seconds', async () => {
    const late = await linkFor('late@example.com');
    const justInTime = await linkFor('ontime@example.com');
    now += SIGN_IN_LINK_TTL_MS - 1;
    expect((await open(justInTime.url)).statusCode).toBe(303);
    now += 1;
    const res = await open(late.url);
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain('within 60 seconds');
    expect((await admins()).map((a) => a.email)).toEqual(['ontime@example.com']);
  });

  it('makes the account once, and opens it only for the WordPress user it was made for', async () => {
    const first = await linkFor('new@example.com', undefined, 7);
    const second = await linkFor('NEW@example.com', undefined, 7, `${SITE}/`);
    expect((await open(first.url)).statusCode).toBe(303);
    expect((await open(second.url)).statusCode).toBe(303);
    expect((await admins()).map((a) => a.email)).toEqual(['new@example.com']);

    // Another WordPress user with that e-mail (or the same id on another site) is refused, before any link exists.
    for (const [wpUserId, site] of [[8, SITE], [7, 'https://other.example.com']] as const) {
      const res = await issue({ email: 'new@example.com', wp_user_id: wpUserId, site_url: site });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'account_not_linked' });
    }
    expect(await wp.core.db.selectFrom('admin_sign_in_links').selectAll().execute()).toEqual([]);
    expect(await admins()).toHaveLength(1);
  });

  it('lets one of several simultaneous uses through, and a HEAD request does not spend the link', async () => {
    const link = await linkFor('race@example.com');
    await open(link.url, 'HEAD');
    const answers = await Promise.all(Array.from({ length: 5 }, () => open(link.url)));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([303, 401, 401, 401, 401]);
    expect(await admins()).toHaveLength(1);
  });

  it('refuses a bad e-mail, WordPress user or body with 400 naming the field, before touching the database',
    async () => {
      const valid = { email: 'a@example.com', wp_user_id: 3, site_url: SITE };
      // A NUL was a 500 on PostgreSQL; a comma or a list would be several addresses in one.
      const emails = [undefined, 'not-an-email', 42, 'a\u0000@example.com', 'a@example.com\u0000', 'a,b@example.com',
        'a@example.com, b@example.com', '"a b"@example.com', 'A <a@example.com>', 'a@exa mple.com'];
      for (const email of emails) {
        const res = await issue({ ...valid, email });
        expect(res.statusCode, JSON.stringify(email)).toBe(400);
        expect(res.json()).toMatchObject({ code: 'invalid_email', field: 'email' });
      }
      for (const [field, value] of [['wp_user_id', undefined], ['wp_user_id', 0], ['wp_user_id', '3'],
        ['wp_user_id', 1.5], ['site_url', undefined], ['site_url', 'ftp://shop.example.com'],
        ['site_url', 'https://user:pw@shop.example.com'], ['site_url', 'https://shop.example.com/\u0000'],
        ['name', 5], ['role', 'x']] as const) {
        const res = await issue({ ...valid, [field]: value });
        expect(res.statusCode, `${field}=${JSON.stringify(value)}`).toBe(400);
        expect(res.json().field).toBe(field);
      }
      expect((await issue([])).statusCode).toBe(400);
      const missing = await issue(valid, {});
      expect(missing.statusCode).toBe(401);
      expect(missing.json().code).toBe('missing_host_token');
      const wrong = await issue(valid, { authorization: 'Bearer nope' });
      expect(wrong.json().code).toBe('invalid_host_token');
      // Nothing was issued by any of those.
      expect(await wp.core.db.selectFrom('admin_sign_in_links').selectAll().execute()).toEqual([]);
      for (const url of ['/admin/sign-in-link', '/admin/sign-in-link?token=', '/admin/sign-in-link?token=made-up']) {
        expect((await app.inject({ method: 'GET', url })).statusCode, url).toBe(401);
      }
    });
});
