// The host token authenticates the booking product's writes. WAYPOST_HOST_TOKEN wins (then nothing is stored);
// otherwise one is generated on first start (or by `waypost host-token`) and shown once. Like the admin token
// (src/admin/token.ts) and API secrets, settings keeps only its SHA-256, so a database backup cannot write as the
// host; `waypost host-token --rotate` replaces it.
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import type { Core } from '../core.js';
import { conflict } from '../errors.js';
import { hashSecret, secretMatches } from '../api/keys.js';
import { readRows } from '../store/read.js';

export const HOST_TOKEN_SETTING = 'host_token_hash';

const newToken = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`;

/** Stores the hash of a new token unless `setting` has one; the clear token when this call stored it, else null. */
export async function createStoredToken(core: Core, setting: string, prefix: string): Promise<string | null> {
  const token = newToken(prefix);
  // ON CONFLICT DO NOTHING: of two processes starting at once, one stores its token and the other learns it lost.
  const stored = await core.db.insertInto('settings').values({ name: setting, value: hashSecret(token) })
    .onConflict((oc) => oc.column('name').doNothing()).returning('name').executeTakeFirst();
  return stored ? token : null;
}

/** Replaces the stored hash with a new token's: the old token stops working on the next request everywhere. */
export async function rotateStoredToken(core: Core, setting: string, prefix: string): Promise<string> {
  const token = newToken(prefix);
  const value = hashSecret(token);
  await core.db.insertInto('settings').values({ name: setting, value })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value })).execute();
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

export type HostToken =
  | { source: 'environment'; token: string } // WAYPOST_HOST_TOKEN
  | { source: 'created'; token: string } // generated just now: the only time it can be shown
  | { source: 'stored'; token: null }; // generated earlier; only its hash is kept

/** Makes sure the Host API has a token; its clear value only when it comes from the environment or is new. */
export async function ensureHostToken(core: Core): Promise<HostToken> {
  if (core.config.hostToken) return { source: 'environment', token: core.config.hostToken };
  const token = await createStoredToken(core, HOST_TOKEN_SETTING, 'wph_');
  return token ? { source: 'created', token } : { source: 'stored', token: null };
}

/** A new host token (shown once); the old one stops working. Refused while WAYPOST_HOST_TOKEN decides. */
export async function rotateHostToken(core: Core): Promise<string> {
  if (core.config.hostToken) {
    throw conflict('host_token_from_environment', 'WAYPOST_HOST_TOKEN is set, so the Host API accepts that value '
      + 'and no token is stored: to rotate it, change the variable on every process.');
  }
  return rotateStoredToken(core, HOST_TOKEN_SETTING, 'wph_');
}

/** The Host API's check of a presented bearer token. */
export function hostTokenCheck(core: Core): (presented: string) => Promise<boolean> {
  const fromEnv = core.config.hostToken;
  if (fromEnv) return async (presented) => tokenMatches(presented, fromEnv);
  return storedTokenCheck(core, HOST_TOKEN_SETTING);
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time comparison of a presented bearer token with the expected one. */
export function tokenMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}
