// The admin routes anyone may call before signing in (sign-in, first-admin setup) read at most 8 KB of body: a
// 200 KB "password" is a 413 before it is parsed, counted or hashed, so it can neither cost the server scrypt work nor
// use up the account's sign-in attempts; a normal sign-in and setup still work.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../helpers/db.js';
import type { Waypost } from '../../src/sdk.js';
import type { Clock } from '../../src/core.js';
import { issueSetupToken } from '../../src/admin/setup.js';
import { LOGIN_MAX_FAILURES_PER_EMAIL } from '../../src/admin/login-limit.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, openAdminApp } from './helpers.js';

const HUGE_PASSWORD = 'x'.repeat(200 * 1024);

describe.each(DIALECTS)('body limit of the public admin routes (%s)', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  const clock: Clock = { now: () => Date.parse('2026-03-01T10:00:00Z') };
  afterEach(async () => wp.close());

  describe('sign-in', () => {
    beforeEach(async () => { ({ wp, app } = await openAdminApp(dialect, clock, { withAdmin: true })); });

    it('refuses a 200 KB password with 413 without counting it as a failed attempt', async () => {
      for (let i = 0; i <= LOGIN_MAX_FAILURES_PER_EMAIL; i++) {
        const res = await app.inject({ method: 'POST', url: '/admin/api/session',
          payload: { email: ADMIN_EMAIL, password: HUGE_PASSWORD } });
        expect(res.statusCode).toBe(413);
        expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
        expect(res.json()).toMatchObject({ status: 413, code: 'payload_too_large' });
        expect(res.headers['set-cookie']).toBeUndefined();
      }
      // Six refusals would have locked the account (five failures per e-mail) had the password been checked.
      const ok = await app.inject({ method: 'POST', url: '/admin/api/session',
        payload: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ email: ADMIN_EMAIL, csrf_token: expect.any(String) });
    });
  });

  describe('first-admin setup', () => {
    beforeEach(async () => { ({ wp, app } = await openAdminApp(dialect, clock)); });

    it('refuses a 200 KB body with 413 and leaves the setup link usable', async () => {
      const token = await issueSetupToken(wp.core);
      const huge = await app.inject({ method: 'POST', url: '/admin/api/setup',
        payload: { token, email: ADMIN_EMAIL, password: HUGE_PASSWORD } });
      expect(huge.statusCode).toBe(413);
      expect(huge.json()).toMatchObject({ code: 'payload_too_large' });
      const ok = await app.inject({ method: 'POST', url: '/admin/api/setup',
        payload: { token, email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
      expect(ok.statusCode).toBe(201);
      expect(ok.json()).toEqual({ email: ADMIN_EMAIL, csrf_token: expect.any(String) });
    });
  });
});
