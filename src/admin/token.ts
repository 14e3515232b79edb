// The admin bearer token for automation (`waypost admin token`). Browsers use sessions (src/admin/auth.ts).
// Shown once when created or rotated; settings keeps only its SHA-256 (as for API secrets), so a database backup
// does not hold a working admin credential.
import type { Core } from '../core.js';
import type { Actor } from '../audit/record.js';
import { createStoredToken, rotateStoredToken, storedTokenCheck } from '../tokens.js';

export const ADMIN_TOKEN_SETTING = 'admin_token_hash';

/** Creates the admin token if there is none: its clear value when this call created it, null if one existed. */
export async function ensureAdminToken(core: Core): Promise<string | null> {
  return createStoredToken(core, ADMIN_TOKEN_SETTING, 'wpa_');
}

/** A new admin token (shown once); the old one stops working. Recorded in the audit log when `actor` is given. */
export async function rotateAdminToken(core: Core, actor?: Actor): Promise<string> {
  return rotateStoredToken(core, ADMIN_TOKEN_SETTING, 'wpa_', { actor, action: 'admin_token.rotated' });
}

/** The admin API's check of a presented bearer token. */
export function adminTokenCheck(core: Core): (presented: string) => Promise<boolean> {
  return storedTokenCheck(core, ADMIN_TOKEN_SETTING);
}
