// Which WordPress user a sign-in link may open which console account for. The host token proves only that a request
// comes from the WordPress site, or from anyone who read its wp-config.php, so an e-mail alone never opens an
// account: a link opens the account WordPress made for that very user (site and user id), or one whose owner,
// signed in, allowed that user in the console. A refused request is kept on the account, for its owner to allow.
import { recordAudit } from '../audit/record.js';
import type { Kysely } from 'kysely';
import type { Core } from '../core.js';
import type { Database } from '../store/tables.js';
import { badRequest } from '../errors.js';
import { newId } from '../ids.js';
import { toAdmin, type Admin } from './accounts.js';
import { NO_PASSWORD } from './passwords.js';
import type { AdminRow } from './tables.js';

const SITE_URL_MAX_LENGTH = 2000;

export interface WordPressUser {
  site_url: string; // normalized by parseSiteUrl
  wp_user_id: number;
}

export interface WordPressLinkRequest extends WordPressUser {
  name: string | null;
  requested_at: string;
}

export interface AccountView {
  email: string;
  name: string | null;
  created_via: string | null;
  /** The WordPress user whose sign-in links open this account, if any. */
  wordpress_link: WordPressUser | null;
  /** The last sign-in link refused for this account's e-mail, for its owner to allow. */
  wordpress_link_request: WordPressLinkRequest | null;
}

/** The site's address as WordPress's home_url() gives it, normalized (lower-case host, no trailing slash). */
export function parseSiteUrl(raw: unknown): string {
  let url: URL | null = null;
  if (typeof raw === 'string' && raw.length <= SITE_URL_MAX_LENGTH && !/[\s\0]/.test(raw)) {
    try {
      url = new URL(raw);
    } catch {
      url = null;
    }
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.username || url.password || url.search || url.hash) {
    throw badRequest('invalid_site_url',
      'site_url must be the WordPress site\'s address, like https://shop.example.com (update Waypost Bridge if it is '
      + 'missing).', { field: 'site_url' });
  }
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

export function parseWpUserId(raw: unknown): number {
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 1) {
    throw badRequest('invalid_wp_user_id',
      'wp_user_id must be the WordPress user\'s id, a positive integer (update Waypost Bridge if it is missing).',
      { field: 'wp_user_id' });
  }
  return raw;
}

const boundTo = (row: AdminRow): WordPressUser | null => (row.wp_site_url !== null && row.wp_user_id !== null
  ? { site_url: row.wp_site_url, wp_user_id: Number(row.wp_user_id) }
  : null);

/**
 * Whether a link for `user` may open `row` (the account with the link's e-mail; undefined: none yet, WordPress
 * makes it). An account WordPress made before links carried the user (no binding yet) is bound by its next use.
 */
export function mayOpen(row: AdminRow | undefined, user: WordPressUser): boolean {
  if (!row) return true;
  const bound = boundTo(row);
  if (!bound) return row.created_via === 'wordpress';
  return bound.site_url === user.site_url && bound.wp_user_id === user.wp_user_id;
}

/** Keeps a refused request on the account, so that its owner sees it in the console and can allow it. */
export async function recordLinkRequest(
  core: Core, db: Kysely<Database>, adminId: string, user: WordPressUser, name: string | null,
): Promise<void> {
  const request: WordPressLinkRequest = { ...user, name, requested_at: new Date(core.clock.now()).toISOString() };
  await db.updateTable('admins').set({ wp_link_request: JSON.stringify(request) }).where('id', '=', adminId)
    .execute();
}

/**
 * The account a link opens: the admin with this e-mail if `user` may open it, else null; made now, bound to `user`,
 * when there is none (`created_via: wordpress`, no usable password), and recorded in the audit log within `db` (the
 * link's transaction). Two first uses at once make one account.
 */
export async function wordpressAdmin(
  core: Core, db: Kysely<Database>, email: string, name: string | null, user: WordPressUser, ip: string | null = null,
): Promise<Admin | null> {
  const row: AdminRow = {
    id: newId('adm', core.clock.now()), email, password_hash: NO_PASSWORD,
    created_at: new Date(core.clock.now()).toISOString(), last_login_at: null, created_via: 'wordpress', name,
    wp_site_url: user.site_url, wp_user_id: user.wp_user_id, wp_link_request: null,
  };
  await db.insertInto('admins').values(row).onConflict((oc) => oc.column('email').doNothing()).execute();
  const found = await db.selectFrom('admins').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
  if (found.id === row.id) {
    await recordAudit(core, { type: 'wordpress', name: `${row.id} ${email}`, ip }, { action: 'admin.created',
      targetType: 'admin', targetId: row.id, details: { via: 'WordPress sign-in link', ...user } }, db);
  }
  if (!mayOpen(found, user)) return null;
  if (!boundTo(found)) await setWordPressLink(db, found.id, user);
  return toAdmin(found);
}

/** Binds the account to `user` (null: to no WordPress user) and forgets any pending request. */
export async function setWordPressLink(db: Kysely<Database>, adminId: string, user: WordPressUser | null) {
  await db.updateTable('admins').set({
    wp_site_url: user?.site_url ?? null, wp_user_id: user?.wp_user_id ?? null, wp_link_request: null,
  }).where('id', '=', adminId).execute();
}

export async function accountView(db: Kysely<Database>, adminId: string): Promise<AccountView | null> {
  const row = await db.selectFrom('admins').selectAll().where('id', '=', adminId).executeTakeFirst();
  if (!row) return null;
  const request = row.wp_link_request === null ? null : JSON.parse(row.wp_link_request) as WordPressLinkRequest;
  return {
    email: row.email, name: row.name, created_via: row.created_via, wordpress_link: boundTo(row),
    wordpress_link_request: request,
  };
}
