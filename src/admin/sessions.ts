// Server-side console sessions. The cookie carries a random id; the database keeps only its SHA-256, the admin,
// a CSRF synchronizer token and the expiry. Sessions end after 12 idle hours or 7 days, or on sign-out.
import { createHash, randomBytes } from 'node:crypto';
import type { Core } from '../core.js';
import { findAdmin, type Admin } from './accounts.js';

export const SESSION_COOKIE = 'waypost_session';
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_MAX_MS = 7 * 24 * 60 * 60 * 1000;
// Writing last_seen_at on every request would turn reads into writes; once a minute is precise enough.
const TOUCH_EVERY_MS = 60_000;

export interface Session {
  admin: Admin;
  csrfToken: string;
  expiresAt: number;
  /** 'wordpress': opened by a WordPress sign-in link (single sign-on); null: a password or setup link. */
  openedVia: 'wordpress' | null;
}

const digest = (value: string) => createHash('sha256').update(value).digest('hex');

/** The session cookie's attributes, wherever a session starts (password, setup link, WordPress sign-in link). */
export function sessionCookieOptions(core: Core) {
  const secure = core.config.baseUrl.startsWith('https:');
  return { path: '/admin', httpOnly: true, sameSite: 'strict', secure, maxAge: SESSION_MAX_MS / 1000 } as const;
}

/** Starts a session; returns the cookie value (shown to nobody else) and the session. */
export async function createSession(
  core: Core, admin: Admin, openedVia: Session['openedVia'] = null,
): Promise<{ cookie: string; session: Session }> {
  const now = core.clock.now();
  const cookie = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const expiresAt = now + SESSION_MAX_MS;
  await core.db.transaction().execute(async (trx) => {
    await trx.insertInto('admin_sessions').values({
      id: digest(cookie), admin_id: admin.id, csrf_token: csrfToken, created_at: new Date(now).toISOString(),
      expires_at: expiresAt, last_seen_at: now, opened_via: openedVia,
    }).execute();
    await trx.updateTable('admins').set({ last_login_at: new Date(now).toISOString() }).where('id', '=', admin.id)
      .execute();
    // Housekeeping: sign-ins are rare, so this is where expired sessions go.
    await trx.deleteFrom('admin_sessions')
      .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', now - SESSION_IDLE_MS)])).execute();
  });
  return { cookie, session: { admin, csrfToken, expiresAt, openedVia } };
}

/** The live session for a cookie value, or null (unknown, expired or idle too long). */
export async function findSession(core: Core, cookie: string): Promise<Session | null> {
  const now = core.clock.now();
  const row = await core.db.selectFrom('admin_sessions').selectAll().where('id', '=', digest(cookie))
    .executeTakeFirst();
  if (!row) return null;
  if (Number(row.expires_at) <= now || Number(row.last_seen_at) + SESSION_IDLE_MS <= now) {
    await core.db.deleteFrom('admin_sessions').where('id', '=', row.id).execute();
    return null;
  }
  const admin = await findAdmin(core.db, row.admin_id);
  if (!admin) return null;
  if (now - Number(row.last_seen_at) >= TOUCH_EVERY_MS) {
    await core.db.updateTable('admin_sessions').set({ last_seen_at: now }).where('id', '=', row.id).execute();
  }
  return {
    admin, csrfToken: row.csrf_token, expiresAt: Number(row.expires_at),
    openedVia: row.opened_via === 'wordpress' ? 'wordpress' : null,
  };
}

export async function deleteSession(core: Core, cookie: string): Promise<void> {
  await core.db.deleteFrom('admin_sessions').where('id', '=', digest(cookie)).execute();
}
