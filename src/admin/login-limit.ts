// Sign-in rate limit: failed attempts are counted per client IP and per e-mail over a sliding window, in the
// database so that every API process shares the count. Checking the count and recording the attempt are one
// transaction holding a lock per scope (src/store/locks.ts), so however many sign-ins arrive at once, on however many
// processes, at most the limit of them get their password checked. An attempt is recorded before its password is
// checked; a success takes it back and clears the e-mail's count.
import type { Core } from '../core.js';
import { tooManyRequests } from '../errors.js';
import { newId } from '../ids.js';
import { lockNames } from '../store/locks.js';

export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
export const LOGIN_MAX_FAILURES_PER_EMAIL = 5;
export const LOGIN_MAX_FAILURES_PER_IP = 20;

const scopes = (ip: string, email: string) => ({ ip: `ip:${ip}`, email: `email:${email.trim().toLowerCase()}` });

/** An attempt that may go on to check the password; settle it with `succeeded()` or leave it counted as failed. */
export interface LoginAttempt {
  succeeded(): Promise<void>;
}

/**
 * Throws 429 (recording nothing) when this IP or this e-mail has used up its attempts in the window; otherwise
 * records the attempt and lets the caller check the password.
 */
export async function beginLoginAttempt(core: Core, ip: string, email: string): Promise<LoginAttempt> {
  const now = core.clock.now();
  const s = scopes(ip, email);
  const ids = [newId('lfl', now), newId('lfl', now)];
  await core.db.transaction().execute(async (trx) => {
    await lockNames(trx, [`login:${s.ip}`, `login:${s.email}`]);
    await trx.deleteFrom('admin_login_failures').where('at', '<=', now - LOGIN_WINDOW_MS).execute();
    const rows = await trx.selectFrom('admin_login_failures')
      .select(['scope', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.min('at').as('oldest')])
      .where('scope', 'in', [s.ip, s.email])
      .groupBy('scope')
      .execute();
    for (const row of rows) {
      const limit = row.scope === s.ip ? LOGIN_MAX_FAILURES_PER_IP : LOGIN_MAX_FAILURES_PER_EMAIL;
      if (Number(row.n) >= limit) {
        const retryAfterS = Math.max(1, Math.ceil((Number(row.oldest) + LOGIN_WINDOW_MS - now) / 1000));
        throw tooManyRequests(
          `Too many failed sign-in attempts. Try again in ${Math.ceil(retryAfterS / 60)} minute(s).`,
          retryAfterS,
        );
      }
    }
    await trx.insertInto('admin_login_failures').values([
      { id: ids[0], scope: s.ip, at: now },
      { id: ids[1], scope: s.email, at: now },
    ]).execute();
  });
  return {
    async succeeded() {
      await core.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('admin_login_failures').where('id', 'in', ids).execute();
        await trx.deleteFrom('admin_login_failures').where('scope', '=', s.email).execute();
      });
    },
  };
}
