// The first admin on a fresh install: `waypost serve` prints a one-time setup link; the token in it lets one
// person create the first account. Only its SHA-256 is stored; it expires after 24 hours and dies once used.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { recordAudit } from '../audit/record.js';
import type { Core } from '../core.js';
import { conflict, forbidden } from '../errors.js';
import { writeSetting } from '../store/settings.js';
import { countAdmins, createAdmin, type Admin } from './accounts.js';

const SETTING = 'admin_setup_token';
export const SETUP_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;

const digest = (value: string) => createHash('sha256').update(value).digest();

/** A fresh setup token when no admin exists yet (replacing any earlier one), else null. */
export async function issueSetupToken(core: Core): Promise<string | null> {
  if ((await countAdmins(core.db)) > 0) return null;
  const token = randomBytes(24).toString('base64url');
  const value = JSON.stringify({
    hash: digest(token).toString('hex'), expires_at: core.clock.now() + SETUP_TOKEN_TTL_MS,
  });
  // One upsert: two servers starting at once on a fresh database both issue a token (the later one wins) instead
  // of one failing on the primary key.
  await writeSetting(core.db, SETTING, value);
  return token;
}

export function setupLink(core: Core, token: string): string {
  return `${core.config.baseUrl}/admin/#/setup?token=${encodeURIComponent(token)}`;
}

export async function setupRequired(core: Core): Promise<boolean> {
  return (await countAdmins(core.db)) === 0;
}

type Db = Core['db'];
const storedToken = (db: Db) =>
  db.selectFrom('settings').select('value').where('name', '=', SETTING).executeTakeFirst();

function tokenMatches(core: Core, token: unknown, row: { value: string } | undefined): boolean {
  const stored = row ? (JSON.parse(row.value) as { hash: string; expires_at: number }) : null;
  return typeof token === 'string' && stored !== null && stored.expires_at > core.clock.now()
    && timingSafeEqual(digest(token), Buffer.from(stored.hash, 'hex'));
}

/** What the setup page shows before the form is filled: done already, a dead link (when given one), or the form. */
export async function setupStatus(
  core: Core,
  token?: string,
): Promise<{ setup_required: boolean; token_valid?: boolean }> {
  const required = await setupRequired(core);
  if (token === undefined) return { setup_required: required };
  return { setup_required: required, token_valid: required && tokenMatches(core, token, await storedToken(core.db)) };
}

/**
 * Creates the first admin if the token is the current one; the token is spent in the same transaction. With `from`
 * (the browser's address), the account is recorded in the audit log in that transaction too, the new admin, who held
 * the link, as who acted (tests that seed an account give none).
 */
export async function completeSetup(
  core: Core, token: unknown, email: unknown, password: unknown, from?: { ip: string },
): Promise<Admin> {
  return core.db.transaction().execute(async (trx) => {
    if ((await countAdmins(trx)) > 0) throw conflict('setup_done', 'Waypost already has an admin. Sign in instead.');
    const row = await storedToken(trx);
    if (!tokenMatches(core, token, row)) {
      throw forbidden('invalid_setup_token', 'This setup link is invalid or has expired. Restart Waypost for a new '
        + 'one, or create an admin with the command: npx waypost admin create --email you@example.com');
    }
    // Spending the token first makes a concurrent second use wait on the row lock and then find nothing.
    const spent = await trx.deleteFrom('settings').where('name', '=', SETTING).where('value', '=', row!.value)
      .executeTakeFirst();
    if (Number(spent.numDeletedRows) !== 1) {
      throw forbidden('invalid_setup_token', 'This setup link has already been used.');
    }
    const admin = await createAdmin(core, email, password, trx);
    if (from) {
      await recordAudit(core, { type: 'admin', name: `${admin.id} ${admin.email}`, ip: from.ip },
        { action: 'admin.created', targetType: 'admin', targetId: admin.id, details: { via: 'setup link' } }, trx);
    }
    return admin;
  });
}
