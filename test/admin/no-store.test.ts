// Every admin API answer that carries a secret or a CSRF token (and every other /admin/api answer) says
// Cache-Control: no-store, so no browser cache or proxy keeps a copy of a key's secret, a webhook's secret or a
// session's CSRF token after the page is closed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { DIALECTS } from '../helpers/db.js';
import type { Waypost } from '../../src/sdk.js';
import type { Clock } from '../../src/core.js';
import { issueSetupToken } from '../../src/admin/setup.js';
import { rotateAdminToken } from '../../src/admin/token.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, openAdminApp, sessionCookieOf } from './helpers.js';

const WEBHOOK = { name: 'Bookings to CRM', url: 'https://crm.example.com/hooks', events: ['booking.created'] };

describe.each(DIALECTS)('Cache-Control: no-store on admin answers (%s)', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  const clock: Clock = { now: () => Date.parse('2026-03-01T10:00:00Z') };
  beforeEach(async () => { ({ wp, app } = await openAdminApp(dialect, clock)); });
  afterEach(async () => wp.close());

  /** The answer, after checking its status and that it may not be stored. */
  const noStore = (what: string, res: LightMyRequestResponse, status: number) => {
    expect(res.statusCode, `${what}: ${res.body}`).toBe(status);
    expect(res.headers['cache-control'], what).toBe('no-store');
    return res;
  };

  it('on the setup, sign-in and session answers that carry the CSRF token', async () => {
    const token = await issueSetupToken(wp.core);
    noStore('setup status', await app.inject({ url: `/admin/api/setup?token=${token}` }), 200);
    const setup = noStore('setup', await app.inject({ method: 'POST', url: '/admin/api/setup',
      payload: { token, email: ADMIN_EMAIL, password: ADMIN_PASSWORD } }), 201);
    expect(setup.json().csrf_token).toEqual(expect.any(String));
    const signIn = noStore('sign-in', await app.inject({ method: 'POST', url: '/admin/api/session',
      payload: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } }), 200);
    expect(signIn.json().csrf_token).toEqual(expect.any(String));
    const me = noStore('session', await app.inject({ url: '/admin/api/session',
      headers: { cookie: sessionCookieOf(signIn.headers['set-cookie']) } }), 200);
    expect(me.json().csrf_token).toBe(signIn.json().csrf_token);
    noStore('failed sign-in', await app.inject({ method: 'POST', url: '/admin/api/session',
      payload: { email: ADMIN_EMAIL, password: 'not the password' } }), 401);
  });

  it('on the answers that show an API key\'s or a webhook\'s secret, and on refusals', async () => {
    const auth = { authorization: `Bearer ${await rotateAdminToken(wp.core)}` };
    const key = noStore('key creation', await app.inject({ method: 'POST', url: '/admin/api/keys', headers: auth,
      payload: { label: 'Website', permissions: ['trips.list'] } }), 201);
    expect(key.json().secret).toEqual(expect.any(String));
    const hook = noStore('webhook creation', await app.inject({ method: 'POST', url: '/admin/api/webhooks',
      headers: auth, payload: WEBHOOK }), 201);
    expect(hook.json().secret).toMatch(/^whsec_/);
    const id = hook.json().id as string;
    const reveal = noStore('secret reveal', await app.inject({ url: `/admin/api/webhooks/${id}/secret`,
      headers: auth }), 200);
    expect(reveal.json().secret).toBe(hook.json().secret);
    noStore('rotation', await app.inject({ method: 'POST', url: `/admin/api/webhooks/${id}/rotate-secret`,
      headers: auth, payload: { grace_seconds: 3600 } }), 200);
    noStore('regeneration', await app.inject({ method: 'POST', url: `/admin/api/webhooks/${id}/secret/rotate`,
      headers: auth }), 200);
    noStore('a list', await app.inject({ url: '/admin/api/keys', headers: auth }), 200);
    noStore('no credentials', await app.inject({ url: `/admin/api/webhooks/${id}/secret` }), 401);
    noStore('unknown webhook', await app.inject({ url: '/admin/api/webhooks/whk_nope/secret', headers: auth }), 404);
  });
});
