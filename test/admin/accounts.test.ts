// First-admin setup link, login rate limit, password storage, and the settings the console edits.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../helpers/db.js';
import type { Waypost } from '../../src/sdk.js';
import type { Clock } from '../../src/core.js';
import { createAdmin, firstAdminEmail } from '../../src/admin/accounts.js';
import { issueSetupToken, SETUP_TOKEN_TTL_MS } from '../../src/admin/setup.js';
import { LOGIN_MAX_FAILURES_PER_EMAIL, LOGIN_MAX_FAILURES_PER_IP,
  LOGIN_WINDOW_MS } from '../../src/admin/login-limit.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, openAdminApp, signIn, withAdmin } from './helpers.js';

describe.each(DIALECTS)('admin accounts (%s)', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let now: number;
  const clock: Clock = { now: () => now };

  beforeEach(async () => {
    now = Date.parse('2026-03-01T10:00:00Z');
    ({ wp, app } = await openAdminApp(dialect, clock));
  });
  afterEach(async () => wp.close());

  describe('first admin through the setup link', () => {
    it('creates the first admin once, signs them in, and refuses the same link afterwards', async () => {
      expect((await app.inject({ method: 'GET', url: '/admin/api/setup' })).json()).toEqual({ setup_required: true });
      const token = await issueSetupToken(wp.core);
      expect(token).toEqual(expect.any(String));
      const res = await app.inject({ method: 'POST', url: '/admin/api/setup',
        payload: { token, email: 'First@Example.com', password: ADMIN_PASSWORD } });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual({ email: 'first@example.com', csrf_token: expect.any(String) });
      expect(String(res.headers['set-cookie'])).toMatch(/waypost_session=.+HttpOnly/);
      const again = await app.inject({ method: 'POST', url: '/admin/api/setup',
        payload: { token, email: 'second@example.com', password: ADMIN_PASSWORD } });
      expect(again.statusCode).toBe(409);
      expect(again.json().code).toBe('setup_done');
      expect((await app.inject({ method: 'GET', url: '/admin/api/setup' })).json()).toEqual({ setup_required: false });
      expect(await issueSetupToken(wp.core)).toBeNull();
    });

    it('refuses a wrong or expired token, and keeps a valid one usable after a rejected weak password', async () => {
      const token = await issueSetupToken(wp.core);
      const wrong = await app.inject({ method: 'POST', url: '/admin/api/setup',
        payload: { token: 'nope', email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
      expect(wrong.statusCode).toBe(403);
      expect(wrong.json().code).toBe('invalid_setup_token');
      const weak = await app.inject({ method: 'POST', url: '/admin/api/setup',
        payload: { token, email: ADMIN_EMAIL, password: 'short' } });
      expect(weak.statusCode).toBe(400);
      expect(weak.json()).toMatchObject({ code: 'weak_password', field: 'password' });
      now += SETUP_TOKEN_TTL_MS + 1;
      const expired = await app.inject({ method: 'POST', url: '/admin/api/setup',
        payload: { token, email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
      expect(expired.statusCode).toBe(403);
    });

    it('only the latest printed link works (each start issues a new one)', async () => {
      const first = await issueSetupToken(wp.core);
      const second = await issueSetupToken(wp.core);
      expect((await app.inject({ method: 'POST', url: '/admin/api/setup', payload: { token: first, email: ADMIN_EMAIL,
        password: ADMIN_PASSWORD } })).statusCode).toBe(403);
      expect((await app.inject({ method: 'POST', url: '/admin/api/setup', payload: { token: second, email: ADMIN_EMAIL,
        password: ADMIN_PASSWORD } })).statusCode).toBe(201);
    });
  });

  describe('login rate limit', () => {
    it(`locks an e-mail out after ${LOGIN_MAX_FAILURES_PER_EMAIL} failures, even with the right password, `
      + 'until the window passes', async () => {
      await withAdmin(wp);
      for (let i = 0; i < LOGIN_MAX_FAILURES_PER_EMAIL; i++) {
        const res = await app.inject({ method: 'POST', url: '/admin/api/session',
          payload: { email: ADMIN_EMAIL, password: `wrong-${i}` }, remoteAddress: `10.0.1.${i}` });
        expect(res.statusCode).toBe(401);
      }
      const locked = await app.inject({ method: 'POST', url: '/admin/api/session',
        payload: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, remoteAddress: '10.0.2.1' });
      expect(locked.statusCode).toBe(429);
      expect(locked.json().code).toBe('rate_limited');
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      now += LOGIN_WINDOW_MS + 1;
      await expect(signIn(app)).resolves.toMatchObject({ csrf: expect.any(String) });
    });

    it(`limits one IP address to ${LOGIN_MAX_FAILURES_PER_IP} failures across e-mails`, async () => {
      for (let i = 0; i < LOGIN_MAX_FAILURES_PER_IP; i++) {
        await app.inject({ method: 'POST', url: '/admin/api/session', payload: { email: `guess${i}@example.com`,
          password: 'wrong password' }, remoteAddress: '10.9.9.9' });
      }
      const res = await app.inject({ method: 'POST', url: '/admin/api/session', payload: { email: 'another@example.com',
        password: 'wrong password' }, remoteAddress: '10.9.9.9' });
      expect(res.statusCode).toBe(429);
      const elsewhere = await app.inject({ method: 'POST', url: '/admin/api/session',
        payload: { email: 'another@example.com', password: 'wrong password' }, remoteAddress: '10.9.9.10' });
      expect(elsewhere.statusCode).toBe(401);
    });
  });

  describe('accounts', () => {
    it('stores passwords as salted scrypt hashes and refuses a duplicate e-mail', async () => {
      await createAdmin(wp.core, ADMIN_EMAIL, ADMIN_PASSWORD);
      await createAdmin(wp.core, 'other@example.com', ADMIN_PASSWORD);
      const rows = await wp.core.db.selectFrom('admins').select(['email', 'password_hash']).orderBy('email').execute();
      for (const row of rows) {
        expect(row.password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
        expect(row.password_hash).not.toContain(ADMIN_PASSWORD);
      }
      expect(rows[0]!.password_hash).not.toBe(rows[1]!.password_hash); // different salts
      await expect(createAdmin(wp.core, 'OPS@example.com', ADMIN_PASSWORD))
        .rejects.toMatchObject({ status: 409, code: 'admin_exists' });
      await expect(createAdmin(wp.core, 'not-an-email', ADMIN_PASSWORD))
        .rejects.toMatchObject({ status: 400, code: 'invalid_email' });
    });

    it('reports the first admin\'s e-mail as the default alert recipient', async () => {
      expect(await firstAdminEmail(wp.core.db)).toBeNull();
      await createAdmin(wp.core, 'first@example.com', ADMIN_PASSWORD);
      now += 1000;
      await createAdmin(wp.core, 'second@example.com', ADMIN_PASSWORD);
      expect(await firstAdminEmail(wp.core.db)).toBe('first@example.com');
    });
  });

  describe('settings', () => {
    beforeEach(async () => withAdmin(wp));

    it('defaults the alert e-mail to the first admin and retention to the configured days', async () => {
      const s = await signIn(app);
      const res = await app.inject({ method: 'GET', url: '/admin/api/settings', headers: { cookie: s.cookie } });
      expect(res.json())
        .toEqual({ alert_email: ADMIN_EMAIL, alert_email_source: 'first_admin',
        log_retention_days: wp.config.logRetentionDays, audit_retention_days: wp.config.auditRetentionDays,
        payload_retention_days: null, response_retention_days: null, smtp_configured: false,
        private_targets: { allowed: true, source: 'environment' } }); // the tests' WAYPOST_ALLOW_PRIVATE_TARGETS
    });

    it('saves a new alert e-mail and retention into the settings rows, and clears back to the default', async () => {
      const s = await signIn(app);
      const saved = await app.inject({ method: 'PUT', url: '/admin/api/settings', headers: s.headers,
        payload: { alert_email: 'alerts@example.com', log_retention_days: 90 } });
      expect(saved.json()).toMatchObject({ alert_email: 'alerts@example.com', alert_email_source: 'setting',
        log_retention_days: 90 });
      const rows = await wp.core.db.selectFrom('settings').selectAll()
        .where('name', 'in', ['alert_email', 'log_retention_days']).orderBy('name').execute();
      expect(rows).toEqual([{ name: 'alert_email', value: 'alerts@example.com' },
        { name: 'log_retention_days', value: '90' }]);
      const cleared = await app.inject({ method: 'PUT', url: '/admin/api/settings', headers: s.headers,
        payload: { alert_email: '' } });
      expect(cleared.json())
        .toMatchObject({ alert_email: ADMIN_EMAIL, alert_email_source: 'first_admin', log_retention_days: 90 });
    });

    it.each([
      [{ alert_email: 'not an address' }, 'alert_email', 'invalid_email'],
      [{ alert_email: 'alerts,other@example.com' }, 'alert_email', 'invalid_email'],
      [{ alert_email: 'alerts\u0000@example.com' }, 'alert_email', 'invalid_email'],
      [{ log_retention_days: 0 }, 'log_retention_days', 'invalid_retention'],
      [{ log_retention_days: 3651 }, 'log_retention_days', 'invalid_retention'],
      [{ log_retention_days: 2.5 }, 'log_retention_days', 'invalid_retention'],
      [{ log_retention_days: '30' }, 'log_retention_days', 'invalid_retention'],
    ])('rejects %j with a 400 naming the field', async (payload, field, code) => {
      const s = await signIn(app);
      const res = await app.inject({ method: 'PUT', url: '/admin/api/settings', headers: s.headers, payload });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ field, code });
      const after = await app.inject({ method: 'GET', url: '/admin/api/settings', headers: { cookie: s.cookie } });
      expect(after.json().log_retention_days).toBe(wp.config.logRetentionDays); // nothing half-saved
    });
  });
});
