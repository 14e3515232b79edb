// Sign-in rate limit: failed attempts are counted per client IP and per e-mail over a sliding window, in the
// database so that every API process shares the count. A success clears the e-mail's count.
import type { Core } from '../core.js';
import { tooManyRequests } from '../errors.js';
import { newId } from '../ids.js';

export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
export const LOGIN_MAX_FAILURES_PER_EMAIL = 5;
export const LOGIN_MAX_FAILURES_PER_IP = 20;

const scopes = (ip: string, email: string) => ({ ip: `ip:${ip}`, email: `email:${email.trim().toLowerCase()}` });

/** Throws 429 when this IP or this e-mail has failed too often recently. */
export async function checkLoginAllowed(core: Core, ip: string, email: string): Promise<void> {
  const now = core.clock.now();
  const s = scopes(ip, email);
  const rows = await core.db.selectFrom('admin_login_failures')
    .select(['scope', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.min('at').as('oldest')])
    .where('scope', 'in', [s.ip, s.email])
    .where('at', '>', now - LOGIN_WINDOW_MS)
    .groupBy('scope')
    .execute();
  for (const row of rows) {
    const limit = row.scope === s.ip ? LOGIN_MAX_FAILURES_PER_IP : LOGIN_MAX_FAILURES_PER_EMAIL;
    if (Number(row.n) >= limit) {
      const retryAfterS = Math.max(1, Math.ceil((Number(row.oldest) + LOGIN_WINDOW_MS - now) / 1000));
      throw tooManyRequests(`Too many failed sign-in attempts. Try again in ${Math.ceil(retryAfterS / 60)} minute(s).`, retryAfterS);
    }
  }
}

export async function recordLoginFailure(core: Core, ip: string, email: string): Promise<void> {
  const now = core.clock.now();
  const s = scopes(ip, email);
  await core.db.transaction().execute(async (trx) => {
    await trx.insertInto('admin_login_failures').values([
      { id: newId('lfl', now), scope: s.ip, at: now },
      { id: newId('lfl', now), scope: s.email, at: now },
    ]).execute();
    await trx.deleteFrom('admin_login_failures').where('at', '<=', now - LOGIN_WINDOW_MS).execute();
  });
}

export async function clearLoginFailures(core: Core, email: string): Promise<void> {
  await core.db.deleteFrom('admin_login_failures').where('scope', '=', scopes('', email).email).execute();
}
