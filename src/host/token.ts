// The host token authenticates the booking product's writes. WAYPOST_HOST_TOKEN wins; otherwise one is generated
// on first start and kept in settings (shown by `waypost host-token`).
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import type { Core } from '../core.js';

export async function ensureHostToken(core: Core): Promise<string> {
  if (core.config.hostToken) return core.config.hostToken;
  const existing = await core.db.selectFrom('settings').select('value').where('name', '=', 'host_token').executeTakeFirst();
  if (existing) return existing.value;
  const token = `wph_${randomBytes(24).toString('base64url')}`;
  await core.db.insertInto('settings').values({ name: 'host_token', value: token }).onConflict((oc) => oc.column('name').doNothing()).execute();
  const stored = await core.db.selectFrom('settings').select('value').where('name', '=', 'host_token').executeTakeFirstOrThrow();
  return stored.value;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time comparison of a presented bearer token with the expected one. */
export function tokenMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}
