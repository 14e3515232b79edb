// The host token authenticates the booking product's writes. WAYPOST_HOST_TOKEN wins (then nothing is stored);
// otherwise one is generated on first start (or by `waypost host-token`) and shown once. Like the admin token
// (src/admin/token.ts) and API secrets, settings keeps only its SHA-256, so a database backup cannot write as the
// host; `waypost host-token --rotate` replaces it.
import type { Actor } from '../audit/record.js';
import type { Core } from '../core.js';
import { conflict } from '../errors.js';
import { createStoredToken, rotateStoredToken, storedTokenCheck, tokenMatches } from '../tokens.js';
import { readAgainIfDropped } from './locks.js';

export const HOST_TOKEN_SETTING = 'host_token_hash';

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

/**
 * A new host token (shown once); the old one stops working. Refused while WAYPOST_HOST_TOKEN decides. Recorded in the
 * audit log when `actor` is given.
 */
export async function rotateHostToken(core: Core, actor?: Actor): Promise<string> {
  if (core.config.hostToken) {
    throw conflict('host_token_from_environment', 'WAYPOST_HOST_TOKEN is set, so the Host API accepts that value '
      + 'and no token is stored: to rotate it, change the variable on every process.');
  }
  return rotateStoredToken(core, HOST_TOKEN_SETTING, 'wph_', { actor, action: 'host_token.rotated' });
}

/** The Host API's check of a presented bearer token. */
export function hostTokenCheck(core: Core): (presented: string) => Promise<boolean> {
  const fromEnv = core.config.hostToken;
  if (fromEnv) return async (presented) => tokenMatches(presented, fromEnv);
  const check = storedTokenCheck(core, HOST_TOKEN_SETTING);
  // Read on every request: a connection dropped under it must not turn the write it guards into a 503.
  return (presented) => readAgainIfDropped(() => check(presented));
}
