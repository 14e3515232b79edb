// Signing in from WordPress: the bridge's "Open Webhooks & API" asks the Host API for a link
// (POST /host/v1/sign-in-links {email, name?, wp_user_id, site_url}) and sends the WordPress admin's browser to it.
// Opening it (GET /admin/sign-in-link?token=…) starts a console session with no password. It opens only an account
// bound to that WordPress user (src/admin/wordpress-link.ts), made on first use; a password account's e-mail is
// refused until its owner allows that user in the console. A link works once, for 60 s; only the SHA-256 of its
// token is stored. The token travels in the query so that the server can set the session cookie on that very
// navigation and redirect to the console; request logs redact it (`token` is a credential name, src/log.ts), and
// the redirect away keeps it out of any Referer.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import { badRequest, forbidden } from '../errors.js';
import { normalizeEmail, type Admin } from './accounts.js';
import { createSession, SESSION_COOKIE, sessionCookieOptions } from './sessions.js';
import {
  mayOpen, parseSiteUrl, parseWpUserId, recordLinkRequest, wordpressAdmin, type WordPressUser,
} from './wordpress-link.js';

export const SIGN_IN_LINK_TTL_MS = 60_000;
const NAME_MAX_LENGTH = 200;

const digest = (value: string) => createHash('sha256').update(value).digest('hex');

export interface SignInLinkRequest {
  email: string;
  name: string | null;
  user: WordPressUser;
}

/** The body of POST /host/v1/sign-in-links; throws a 400 naming the field for a bad one. */
export function parseSignInLinkRequest(body: unknown): SignInLinkRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('invalid_body', 'the body must be a JSON object {"email": …, "name": …, "wp_user_id": …, '
      + '"site_url": …}', { field: '(body)' });
  }
  const { email: rawEmail, name: rawName, wp_user_id: rawUserId, site_url: rawSite, ...rest } =
    body as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw badRequest('invalid_field', `${unknown} is not a known field`, { field: unknown });
  const email = normalizeEmail(rawEmail);
  if (rawName !== undefined && rawName !== null && (typeof rawName !== 'string' || rawName.length > NAME_MAX_LENGTH)) {
    throw badRequest('invalid_field', `name must be a string of at most ${NAME_MAX_LENGTH} characters`, {
      field: 'name',
    });
  }
  const name = typeof rawName === 'string' && rawName.trim() !== '' ? rawName.trim() : null;
  return { email, name, user: { wp_user_id: parseWpUserId(rawUserId), site_url: parseSiteUrl(rawSite) } };
}

const notLinked = ({ email, user }: SignInLinkRequest) => forbidden('account_not_linked',
  `The Waypost account ${email} is not linked to WordPress user #${user.wp_user_id} on ${user.site_url}, so `
  + 'WordPress cannot sign in as it. Its owner can allow it: sign in to the Waypost console with that account\'s '
  + 'password, open Account, and allow this WordPress user.');

/** Makes a link; null (the request kept for the account's owner to allow) when it may not open that account. */
export async function issueSignInLink(core: Core, request: SignInLinkRequest): Promise<{
  url: string; expires_at: string } | null> {
  const { email, name, user } = request;
  const token = randomBytes(32).toString('base64url');
  const now = core.clock.now();
  const expiresAt = now + SIGN_IN_LINK_TTL_MS;
  const issued = await core.db.transaction().execute(async (trx) => {
    const account = await trx.selectFrom('admins').selectAll().where('email', '=', email).executeTakeFirst();
    if (account && !mayOpen(account, user)) {
      await recordLinkRequest(core, trx, account.id, user, name);
      return false;
    }
    // Housekeeping: links are made one at a time by a person, so this is where unused ones go.
    await trx.deleteFrom('admin_sign_in_links').where('expires_at', '<=', now).execute();
    await trx.insertInto('admin_sign_in_links').values({
      id: digest(token), email, name, created_at: new Date(now).toISOString(), expires_at: expiresAt,
      wp_site_url: user.site_url, wp_user_id: user.wp_user_id,
    }).execute();
    return true;
  });
  return issued ? { url: signInLinkUrl(core, token), expires_at: new Date(expiresAt).toISOString() } : null;
}

export function signInLinkUrl(core: Core, token: string): string {
  return `${core.config.baseUrl}/admin/sign-in-link?token=${encodeURIComponent(token)}`;
}

/**
 * Spends a link: the admin it opens (made now on first use), 'not_linked' when that account is not (any longer)
 * bound to the link's WordPress user, or null when the link is unknown, used or expired. The delete that spends it
 * is the check, so of two uses at once only one finds the row.
 */
export async function redeemSignInLink(core: Core, token: string, ip: string | null = null)
  : Promise<Admin | 'not_linked' | null> {
  const now = core.clock.now();
  return core.db.transaction().execute(async (trx) => {
    const link = await trx.deleteFrom('admin_sign_in_links').where('id', '=', digest(token))
      .returning(['email', 'name', 'expires_at', 'wp_site_url', 'wp_user_id']).executeTakeFirst();
    if (!link || Number(link.expires_at) <= now) return null;
    const user = { site_url: link.wp_site_url, wp_user_id: Number(link.wp_user_id) };
    return (await wordpressAdmin(core, trx, link.email, link.name, user, ip)) ?? 'not_linked';
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

const NOT_LINKED_PAGE = page('This account is not linked to your WordPress user',
  'A Waypost account with your e-mail exists and WordPress may not sign in as it. Its owner can allow it: sign in '
  + 'at <a href="/admin/">/admin/</a> with that account\'s password, open <b>Account</b>, and allow your WordPress '
  + 'user. Then click <b>Open Webhooks &amp; API</b> in WordPress again.');

/** POST /host/v1/sign-in-links (mounted by src/app.ts among the Host API's routes, behind the host token). */
export async function signInLinkIssueRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  app.post('/sign-in-links', async (req, reply) => {
    const request = parseSignInLinkRequest(req.body);
    // Who asked for which account, from where: never the token (it is the credential).
    const fields = { email: request.email, wp_user_id: request.user.wp_user_id, site_url: request.user.site_url,
      ip: req.ip };
    const link = await issueSignInLink(core, request);
    if (!link) {
      req.log.warn(fields, 'admin sign-in link refused: the account is not linked to this WordPress user');
      throw notLinked(request);
    }
    req.log.info(fields, 'admin sign-in link issued');
    // The answer is a credential: no browser or proxy may keep it.
    return reply.code(201).header('cache-control', 'no-store').send(link);
  });
}

/** GET /admin/sign-in-link?token=…: the session cookie and a redirect to the console, or a page saying why not. */
export async function signInLinkRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  // No automatic HEAD route: a link checker's HEAD must not spend the link.
  app.get('/sign-in-link', { exposeHeadRoute: false }, async (req, reply) => {
    reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
    const token = (req.query as { token?: unknown }).token;
    const admin = typeof token === 'string' && token.length > 0 && token.length <= 200
      ? await redeemSignInLink(core, token, req.ip)
      : null;
    if (admin === 'not_linked') {
      req.log.warn({ ip: req.ip }, 'admin sign-in link refused: the account is not linked to its WordPress user');
      return reply.code(403).header('x-frame-options', 'DENY').type('text/html; charset=utf-8')
        .send(NOT_LINKED_PAGE);
    }
    if (!admin) {
      req.log.warn({ ip: req.ip }, 'admin sign-in link refused (unknown, used or expired)');
      return reply.code(401).header('x-frame-options', 'DENY').type('text/html; charset=utf-8')
        .send(LINK_REFUSED_PAGE);
    }
    const { cookie } = await createSession(core, admin, 'wordpress');
    req.log.info({ admin: admin.id }, 'admin signed in with a WordPress sign-in link');
    return reply.setCookie(SESSION_COOKIE, cookie, sessionCookieOptions(core)).redirect('/admin/', 303);
  });
}
