// Signing in from WordPress: the bridge's "Open Webhooks & API" asks the Host API for a link
// (POST /host/v1/sign-in-links {email, name?}) and sends the WordPress admin's browser to it. Opening it
// (GET /admin/sign-in-link?token=…) starts a console session with no password; the account for that e-mail is made
// on first use. A link works once, for 60 s; only the SHA-256 of its token is stored. The token travels in the
// query so that the server can set the session cookie on that very navigation and redirect to the console; request
// logs redact it (`token` is a credential name, src/log.ts), and the redirect away keeps it out of any Referer.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import { badRequest } from '../errors.js';
import { normalizeEmail, wordpressAdmin, type Admin } from './accounts.js';
import { createSession, SESSION_COOKIE, sessionCookieOptions } from './sessions.js';

export const SIGN_IN_LINK_TTL_MS = 60_000;
const NAME_MAX_LENGTH = 200;

const digest = (value: string) => createHash('sha256').update(value).digest('hex');

/** Makes a link for `{email, name?}`; throws a 400 naming the field for a bad body. */
export async function issueSignInLink(core: Core, body: unknown): Promise<{ url: string; expires_at: string }> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('invalid_body', 'the body must be a JSON object {"email": …, "name": …}', { field: '(body)' });
  }
  const { email: rawEmail, name: rawName, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw badRequest('invalid_field', `${unknown} is not a known field`, { field: unknown });
  const email = normalizeEmail(rawEmail);
  if (rawName !== undefined && rawName !== null && (typeof rawName !== 'string' || rawName.length > NAME_MAX_LENGTH)) {
    throw badRequest('invalid_field', `name must be a string of at most ${NAME_MAX_LENGTH} characters`, {
      field: 'name',
    });
  }
  const name = typeof rawName === 'string' && rawName.trim() !== '' ? rawName.trim() : null;
  const token = randomBytes(32).toString('base64url');
  const now = core.clock.now();
  const expiresAt = now + SIGN_IN_LINK_TTL_MS;
  await core.db.transaction().execute(async (trx) => {
    // Housekeeping: links are made one at a time by a person, so this is where unused ones go.
    await trx.deleteFrom('admin_sign_in_links').where('expires_at', '<=', now).execute();
    await trx.insertInto('admin_sign_in_links').values({
      id: digest(token), email, name, created_at: new Date(now).toISOString(), expires_at: expiresAt,
    }).execute();
  });
  return { url: signInLinkUrl(core, token), expires_at: new Date(expiresAt).toISOString() };
}

export function signInLinkUrl(core: Core, token: string): string {
  return `${core.config.baseUrl}/admin/sign-in-link?token=${encodeURIComponent(token)}`;
}

/**
 * Spends a link: the admin it opens (made now on first use), or null when the link is unknown, used or expired.
 * The delete that spends it is the check, so of two uses at once only one finds the row.
 */
export async function redeemSignInLink(core: Core, token: string): Promise<Admin | null> {
  const now = core.clock.now();
  return core.db.transaction().execute(async (trx) => {
    const link = await trx.deleteFrom('admin_sign_in_links').where('id', '=', digest(token))
      .returning(['email', 'name', 'expires_at']).executeTakeFirst();
    if (!link || Number(link.expires_at) <= now) return null;
    return wordpressAdmin(core, trx, link.email, link.name);
  });
}

const page = (title: string, text: string) => `<!doctype html><html lang="en"><meta charset="utf-8">
<title>${title}</title>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;line-height:1.5;color:#1f2328">
<h1>${title}</h1>
<p>${text}</p>
</body></html>`;

const LINK_REFUSED_PAGE = page('This sign-in link no longer works',
  'Links from WordPress work once, within 60 seconds. Go back to WordPress, open <b>Settings &gt; Webhooks &amp; '
  + 'API</b> and click <b>Open Webhooks &amp; API</b> again to start over. (Or sign in with your Waypost e-mail and '
  + 'password at <a href="/admin/">/admin/</a>.)');

/** POST /host/v1/sign-in-links (mounted by src/app.ts among the Host API's routes, behind the host token). */
export async function signInLinkIssueRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  app.post('/sign-in-links', async (req, reply) => reply.code(201).send(await issueSignInLink(core, req.body)));
}

/** GET /admin/sign-in-link?token=…: the session cookie and a redirect to the console, or a page saying why not. */
export async function signInLinkRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  // No automatic HEAD route: a link checker's HEAD must not spend the link.
  app.get('/sign-in-link', { exposeHeadRoute: false }, async (req, reply) => {
    reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
    const token = (req.query as { token?: unknown }).token;
    const admin = typeof token === 'string' && token.length > 0 && token.length <= 200
      ? await redeemSignInLink(core, token)
      : null;
    if (!admin) {
      req.log.warn({ ip: req.ip }, 'admin sign-in link refused (unknown, used or expired)');
      return reply.code(401).header('x-frame-options', 'DENY').type('text/html; charset=utf-8')
        .send(LINK_REFUSED_PAGE);
    }
    const { cookie } = await createSession(core, admin);
    req.log.info({ admin: admin.id }, 'admin signed in with a WordPress sign-in link');
    return reply.setCookie(SESSION_COOKIE, cookie, sessionCookieOptions(core)).redirect('/admin/', 303);
  });
}
