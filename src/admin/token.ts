// The admin bearer token for automation (`waypost admin token`). Browsers use sessions (src/admin/auth.ts).
import { randomBytes } from 'node:crypto';
import type { Core } from '../core.js';

export async function ensureAdminToken(core: Core): Promise<string> {
  const existing = await core.db.selectFrom('settings').select('value').where('name', '=', 'admin_token').executeTakeFirst();
  if (existing) return existing.value;
  const token = `wpa_${randomBytes(24).toString('base64url')}`;
  await core.db.insertInto('settings').values({ name: 'admin_token', value: token }).onConflict((oc) => oc.column('name').doNothing()).execute();
  const stored = await core.db.selectFrom('settings').select('value').where('name', '=', 'admin_token').executeTakeFirstOrThrow();
  return stored.value;
}
