// Sign-in, sign-out, the current session, and first-admin setup: /admin/api/session and /admin/api/setup.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Core } from '../core.js';
import { badRequest, unauthorized } from '../errors.js';
import { verifyCredentials, type Admin } from './accounts.js';
import { beginLoginAttempt } from './login-limit.js';
import { createSession, deleteSession, findSession, SESSION_COOKIE, sessionCookieOptions } from './sessions.js';
import { completeSetup, setupStatus } from './setup.js';

const credentialsSchema = {
  type: 'object',
  properties: { email: { type: 'string' }, password: { type: 'string' }, token: { type: 'string' } },
} as const;

// What anyone may send before signing in: an e-mail (254), a password (256) and a setup token (32) fit many times
// over, and anyone may send them: a bigger body is a 413 before it is parsed, counted as a sign-in attempt or
// checked with scrypt (about 40 ms of CPU each).
export const PUBLIC_BODY_LIMIT = 8 * 1024;

interface Credentials {
  email?: string;
  password?: string;
  token?: string;
}

export async function sessionRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  const secure = core.config.baseUrl.startsWith('https:');

  const startSession = async (reply: FastifyReply, admin: Admin) => {
    const { cookie, session } = await createSession(core, admin);
    reply.setCookie(SESSION_COOKIE, cookie, sessionCookieOptions(core));
    return { email: admin.email, csrf_token: session.csrfToken };
  };

  // A fresh options object per route: Fastify keeps what it is given.
  const publicRoute = () => ({
    config: { adminPublic: true }, bodyLimit: PUBLIC_BODY_LIMIT, schema: { body: credentialsSchema },
  });
  app.post<{ Body: Credentials }>('/session', publicRoute(), async (req, reply) => {
    const email = req.body?.email?.trim() ?? '';
    const password = req.body?.password ?? '';
    if (!email) throw badRequest('missing_email', 'Enter your e-mail address.', { field: 'email' });
    // No account's e-mail holds a control character, and PostgreSQL refuses a NUL in text (a 500 otherwise).
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    if (/[\u0000-\u001f]/.test(email)) {
      throw badRequest('invalid_email', 'Enter a valid e-mail address, like ops@example.com.', { field: 'email' });
    }
    if (!password) throw badRequest('missing_password', 'Enter your password.', { field: 'password' });
    const attempt = await beginLoginAttempt(core, req.ip, email);
    const admin = await verifyCredentials(core, email, password);
    if (!admin) {
      req.log.warn({ ip: req.ip }, 'admin sign-in failed');
      throw unauthorized('invalid_credentials', 'The e-mail or password is incorrect.');
    }
    await attempt.succeeded();
    req.log.info({ admin: admin.id }, 'admin signed in');
    return startSession(reply, admin);
  });

  app.get('/session', async (req) => {
    if (req.admin?.kind !== 'session') return { email: null, csrf_token: null, kind: 'token' };
    const session = await findSession(core, req.cookies[SESSION_COOKIE] as string);
    return { email: req.admin.email, csrf_token: session?.csrfToken ?? null, kind: 'session' };
  });

  app.delete('/session', async (req, reply) => {
    const cookie = req.cookies[SESSION_COOKIE];
    if (cookie) await deleteSession(core, cookie);
    reply.clearCookie(SESSION_COOKIE, { path: '/admin', httpOnly: true, sameSite: 'strict', secure });
    return reply.code(204).send();
  });

  // The setup page asks first, so a used link or an install that has an admin says so before the form is filled.
  app.get<{ Querystring: { token?: string } }>('/setup', {
    config: { adminPublic: true },
    schema: { querystring: { type: 'object', properties: { token: { type: 'string', maxLength: 200 } } } },
  }, async (req) => setupStatus(core, req.query.token));

  app.post<{ Body: Credentials }>('/setup', publicRoute(), async (req, reply) => {
    const admin = await completeSetup(core, req.body?.token, req.body?.email, req.body?.password, { ip: req.ip });
    req.log.info({ admin: admin.id }, 'first admin created through the setup link');
    const body = await startSession(reply, admin);
    return reply.code(201).send(body);
  });
}
