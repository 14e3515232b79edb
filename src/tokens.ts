// Credentials kept only as their SHA-256: API secrets (src/api/keys.ts), and the host and admin bearer tokens held in
// `settings` (src/host/token.ts, src/admin/token.ts). Here, at the root, because those capabilities share it.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { recordAudit, type Actor } from './audit/record.js';
import type { Core } from './core.js';
import { readRows } from './store/read.js';
import { writeSetting } from './store/settings.js';

/**
 * SHA-256 of the secret. The secret is 32 random bytes, so a fast hash is enough: a slow KDF only helps against
 * guessing low-entropy passwords, and would make every API request pay for it.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Constant-time check of a presented secret against the stored hash. */
export function secretMatches(presented: string, secretHash: string): boolean {
  const expected = Buffer.from(secretHash, 'hex');
  const actual = hash('sha256', presented, 'buffer');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * Constant-time comparison of a presented token with a known one (from the environment, a session's CSRF token):
 * both are compared as SHA-256, so neither the time nor the lengths tell how much of it was right.
 */
export function tokenMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(hash('sha256', presented, 'buffer'), hash('sha256', expected, 'buffer'));
}

const newToken = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`;

/** Stores the hash of a new token unless `setting` has one; the clear token when this call stored it, else null. */
export async function createStoredToken(core: Core, setting: string, prefix: string): Promise<string | null> {
  const token = newToken(prefix);
  // ON CONFLICT DO NOTHING: of two processes starting at once, one stores its token and the other learns it lost.
  const stored = await core.db.insertInto('settings').values({ name: setting, value: hashSecret(token) })
    .onConflict((oc) => oc.column('name').doNothing()).returning('name').executeTakeFirst();
  return stored ? token : null;
}

/** Who replaced a token (none: not recorded), recorded in the audit log with the replacement (never the token). */
export interface TokenRotation {
  actor: Actor | undefined;
  action: 'host_token.rotated' | 'admin_token.rotated';
}

/**
 * Replaces the stored hash with a new token's: the old token stops working on the next request everywhere. With
 * an actor, the replacement and its audit entry commit together: a replaced token is never missing from the log, and
 * a failed entry leaves the old token working rather than one nobody was shown.
 */
export async function rotateStoredToken(
  core: Core, setting: string, prefix: string, audit: TokenRotation,
): Promise<string> {
  const token = newToken(prefix);
  await core.db.transaction().execute(async (trx) => {
    await writeSetting(trx, setting, hashSecret(token));
    await recordAudit(core, audit.actor,
      { action: audit.action, targetType: audit.action.split('.')[0], targetId: null }, trx);
  });
  return token;
}

/**
 * Checks a presented token against the hash in settings. The hash is read on every request, not held: a rotation
 * by the CLI (another process) must lock the old token out at once, and the read is one primary-key lookup (a
 * prepared statement on SQLite), as API keys are read on PostgreSQL.
 */
export function storedTokenCheck(core: Core, setting: string): (presented: string) => Promise<boolean> {
  const query = core.db.selectFrom('settings').select('value').where('name', '=', setting).compile();
  return async (presented) => {
    const [row] = await readRows<{ value: string }>(core, query);
    return row !== undefined && secretMatches(presented, row.value);
  };
}
