// Console accounts: create, find, verify a password. E-mails are stored lower-cased; passwords as scrypt hashes.
import type { Kysely } from 'kysely';
import { recordAudit, type Actor } from '../audit/record.js';
import type { Core } from '../core.js';
import type { Database } from '../store/tables.js';
import { badRequest, conflict } from '../errors.js';
import { newId } from '../ids.js';
import { DUMMY_HASH, hasPassword, hashPassword, verifyPassword } from './passwords.js';
import type { AdminRow } from './tables.js';

export const PASSWORD_MIN_LENGTH = 10;
const PASSWORD_MAX_LENGTH = 256;
// The HTML standard's "valid e-mail address" (what a browser's type=email accepts), with a dot in the domain: one
// plain address, so no NUL (PostgreSQL refuses it in text), comma or list of addresses, quotes, spaces or brackets.
const EMAIL_RE = new RegExp('^[a-zA-Z0-9.!#$%&\'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?'
  + '(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$');

export interface Admin {
  id: string;
  email: string;
  created_at: string;
  last_login_at: string | null;
  created_via: string | null; // "wordpress": made by a WordPress sign-in link; null: CLI or setup link
}

export const toAdmin = (row: AdminRow): Admin => ({
  id: row.id, email: row.email, created_at: row.created_at, last_login_at: row.last_login_at,
  created_via: row.created_via,
});

/** One plain address (what normalizeEmail accepts): also the alert e-mail's check (src/admin/settings.ts). */
export const isEmailAddress = (email: string) => EMAIL_RE.test(email) && email.length <= 254;

export function normalizeEmail(email: unknown): string {
  if (typeof email !== 'string' || !isEmailAddress(email.trim()) || email.length > 254) {
    throw badRequest('invalid_email', 'Enter a valid e-mail address, like ops@example.com.', { field: 'email' });
  }
  return email.trim().toLowerCase();
}

export function checkPasswordPolicy(password: unknown): string {
  if (typeof password !== 'string' || password.length < PASSWORD_MIN_LENGTH) {
    throw badRequest('weak_password', `The password must be at least ${PASSWORD_MIN_LENGTH} characters long.`, {
      field: 'password',
    });
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    throw badRequest('invalid_password', `The password must be at most ${PASSWORD_MAX_LENGTH} characters long.`, {
      field: 'password',
    });
  }
  return password;
}

export async function createAdmin(
  core: Core, email: unknown, password: unknown, db: Kysely<Database> = core.db,
): Promise<Admin> {
  const normalized = normalizeEmail(email);
  const hash = await hashPassword(checkPasswordPolicy(password));
  const existing = await db.selectFrom('admins').select('id').where('email', '=', normalized).executeTakeFirst();
  if (existing) throw conflict('admin_exists', `An admin with the e-mail ${normalized} already exists.`);
  const row: AdminRow = {
    id: newId('adm', core.clock.now()), email: normalized, password_hash: hash,
    created_at: new Date(core.clock.now()).toISOString(), last_login_at: null, created_via: null, name: null,
    wp_site_url: null, wp_user_id: null, wp_link_request: null,
  };
  await db.insertInto('admins').values(row).execute();
  return toAdmin(row);
}

/**
 * Sets a new password (`waypost admin password`), ends that admin's sessions and clears its sign-in lockout; recorded
 * in the audit log in the same transaction when `actor` is given (never the password).
 */
export async function setPassword(core: Core, email: unknown, password: unknown, actor?: Actor): Promise<boolean> {
  const normalized = normalizeEmail(email);
  const hash = await hashPassword(checkPasswordPolicy(password));
  return core.db.transaction().execute(async (trx) => {
    const admin = await trx.selectFrom('admins').select('id').where('email', '=', normalized).executeTakeFirst();
    if (!admin) return false;
    await trx.updateTable('admins').set({ password_hash: hash }).where('id', '=', admin.id).execute();
    await trx.deleteFrom('admin_sessions').where('admin_id', '=', admin.id).execute();
    await trx.deleteFrom('admin_login_failures').where('scope', '=', `email:${normalized}`).execute();
    await recordAudit(core, actor, { action: 'admin.password_changed', targetType: 'admin', targetId: admin.id }, trx);
    return true;
  });
}

/** The account for these credentials, or null. Takes the same time whether or not the e-mail exists. */
export async function verifyCredentials(core: Core, email: string, password: string): Promise<Admin | null> {
  const row = await core.db.selectFrom('admins').selectAll().where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
  // An account without a password (made by a WordPress sign-in) is checked against the dummy too: same time.
  const usable = row !== undefined && hasPassword(row.password_hash);
  const ok = await verifyPassword(password, usable ? row.password_hash : DUMMY_HASH);
  return usable && ok ? toAdmin(row) : null;
}

export async function findAdmin(db: Kysely<Database>, id: string): Promise<Admin | null> {
  const row = await db.selectFrom('admins').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toAdmin(row) : null;
}

export async function countAdmins(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('admins').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The e-mail of the first admin created: the default recipient of failure alerts. */
export async function firstAdminEmail(db: Kysely<Database>): Promise<string | null> {
  const row = await db.selectFrom('admins').select('email').orderBy('created_at').orderBy('id').limit(1)
    .executeTakeFirst();
  return row?.email ?? null;
}

export async function listAdmins(db: Kysely<Database>): Promise<Admin[]> {
  const rows = await db.selectFrom('admins').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(toAdmin);
}
