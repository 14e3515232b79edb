// Signing in through the real endpoints, for admin API tests: returns the cookie header and the CSRF token.
import type { FastifyInstance } from 'fastify';
import type { Waypost } from '../../src/sdk.js';
import type { Clock } from '../../src/core.js';
import { createAdmin } from '../../src/admin/accounts.js';
import type { TestDialect } from '../helpers/db.js';
import { testWaypost } from '../helpers/waypost.js';

export const ADMIN_EMAIL = 'ops@example.com';
export const ADMIN_PASSWORD = 'correct horse battery';

export interface SignedIn {
  cookie: string;
  csrf: string;
  headers: { cookie: string; 'x-csrf-token': string };
}

export function sessionCookieOf(setCookie: string | string[] | undefined): string {
  const raw = (Array.isArray(setCookie) ? setCookie : [setCookie ?? '']).find((c) => c.startsWith('waypost_session='));
  if (!raw) throw new Error('no waypost_session cookie was set');
  return raw.split(';')[0]!;
}

export async function signIn(app: FastifyInstance, email = ADMIN_EMAIL, password = ADMIN_PASSWORD,
  ip = '10.0.0.1'): Promise<SignedIn> {
  const res = await app.inject({ method: 'POST', url: '/admin/api/session', payload: { email, password },
    remoteAddress: ip });
  if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
  const cookie = sessionCookieOf(res.headers['set-cookie']);
  const csrf = res.json().csrf_token as string;
  return { cookie, csrf, headers: { cookie, 'x-csrf-token': csrf } };
}

export async function withAdmin(wp: Waypost, email = ADMIN_EMAIL, password = ADMIN_PASSWORD): Promise<void> {
  await createAdmin(wp.core, email, password);
}

/** What each admin test starts from: a Waypost on `clock` and its HTTP app, with the first admin when asked. */
export async function openAdminApp(dialect: TestDialect, clock: Clock,
  options: { withAdmin?: boolean; env?: Record<string, string> } = {}): Promise<{ wp: Waypost; app: FastifyInstance }> {
  const wp = await testWaypost({ dialect, clock, env: options.env });
  if (options.withAdmin) await withAdmin(wp);
  return { wp, app: await wp.app() };
}
