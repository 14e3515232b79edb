// Where a new user comes in: the bare server address leads to the console (and nothing else moves), and the setup
// link tells the page, before any form is filled, whether it can still create the first admin.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import type { Clock } from '../../src/core.js';
import { createAdmin } from '../../src/admin/accounts.js';
import { issueSetupToken, SETUP_TOKEN_TTL_MS } from '../../src/admin/setup.js';

describe('entry points of the console', () => {
  let wp: Waypost;
  let app: FastifyInstance;
  let now: number;
  const clock: Clock = { now: () => now };

  beforeEach(async () => {
    now = Date.parse('2026-03-01T10:00:00Z');
    wp = await testWaypost({ clock });
    app = await wp.app();
  });
  afterEach(async () => wp.close());

  it('redirects the server root to /admin/, for GET and HEAD', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await app.inject({ method, url: '/' });
      const answer = { method, status: res.statusCode, location: res.headers.location };
      expect(answer).toEqual({ method, status: 302, location: '/admin/' });
    }
    expect((await app.inject({ method: 'GET', url: '/?utm_source=mail' })).headers.location).toBe('/admin/');
  });

  it('leaves the API, the Host API, the reference, health and the console where they were', async () => {
    const status = async (url: string) => (await app.inject({ method: 'GET', url })).statusCode;
    expect(await status('/rest/waypost/api/v1/test')).toBe(401); // no key: the API answers, not a redirect
    const enquiry = { full_name: 'Ada Lovelace', email: 'ada@example.com', message: 'Open in May?' };
    const put = (headers: Record<string, string>) =>
      app.inject({ method: 'PUT', url: '/host/v1/enquiries/7', headers, payload: enquiry });
    expect((await put({})).statusCode).toBe(401);
    expect((await put(HOST_AUTH)).statusCode).toBeLessThan(300);
    expect([200, 302]).toContain(await status('/rest/waypost/api/v1/docs'));
    expect(await status('/healthz')).toBe(200);
    const admin = await app.inject({ method: 'GET', url: '/admin' });
    expect([admin.statusCode, admin.headers.location]).toEqual([301, '/admin/']);
    expect(await status('/no-such-page')).toBe(404);
  });

  it('says whether setup is still possible and whether this link works, before the form is filled', async () => {
    const setup = async (query = '') => (await app.inject({ method: 'GET', url: `/admin/api/setup${query}` })).json();
    const token = (await issueSetupToken(wp.core))!;
    expect(await setup()).toEqual({ setup_required: true });
    expect(await setup(`?token=${token}`)).toEqual({ setup_required: true, token_valid: true });
    expect(await setup('?token=wrong')).toEqual({ setup_required: true, token_valid: false });
    now += SETUP_TOKEN_TTL_MS + 1;
    expect(await setup(`?token=${token}`)).toEqual({ setup_required: true, token_valid: false });

    await createAdmin(wp.core, 'ops@example.com', 'a long enough password');
    expect(await setup(`?token=${token}`)).toEqual({ setup_required: false, token_valid: false });
    const tooLong = await app.inject({ method: 'GET', url: `/admin/api/setup?token=${'x'.repeat(500)}` });
    expect(tooLong.statusCode).toBe(400);
  });

  it('words its setup and sign-in errors without literal backticks', async () => {
    const payload = { token: 'nope', email: 'a@example.com', password: 'a long enough password' };
    const used = await app.inject({ method: 'POST', url: '/admin/api/setup', payload });
    expect(used.statusCode).toBe(403);
    expect(used.json().detail).toContain('npx waypost admin create --email you@example.com');
    const unauthenticated = await app.inject({ method: 'GET', url: '/admin/api/webhooks' });
    expect(unauthenticated.statusCode).toBe(401);
    for (const res of [used, unauthenticated]) expect(res.json().detail).not.toContain('`');
  });
});
