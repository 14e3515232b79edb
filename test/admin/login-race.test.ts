// The sign-in lockout under real concurrency: many sign-ins for one e-mail in flight at once against running
// servers (two on PostgreSQL, as two processes would be) get their password checked at most the limit of times;
// every other answer is 429, including the right password sent among them.
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabaseUrl } from '../helpers/db.js';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { LOGIN_MAX_FAILURES_PER_EMAIL, LOGIN_MAX_FAILURES_PER_IP } from '../../src/admin/login-limit.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, withAdmin } from './helpers.js';

const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((t, s) => ({ ...t, [s]: (t[s] ?? 0) + 1 }), {});

describe.each(DIALECTS)('sign-in lockout under concurrency on %s', (dialect) => {
  const opened: Waypost[] = [];
  afterEach(async () => {
    for (const wp of opened.splice(0)) await wp.close();
  });

  async function servers(): Promise<string[]> {
    const databaseUrl = await freshDatabaseUrl(dialect);
    // SQLite: one server (a second in this process would block on the file lock); PostgreSQL: two.
    const count = dialect === 'postgres' ? 2 : 1;
    const urls: string[] = [];
    for (let i = 0; i < count; i++) {
      const wp = await createWaypost({
        env: { WAYPOST_HOST_TOKEN: 't' }, logger: createLogger('silent'), config: { databaseUrl },
      });
      opened.push(wp);
      urls.push(`${await (await wp.app()).listen({ port: 0, host: '127.0.0.1' })}/admin/api/session`);
    }
    await withAdmin(opened[0]);
    return urls;
  }

  const signIn = (url: string, email: string, password: string) => fetch(url, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }),
  }).then(async (res) => { await res.arrayBuffer(); return res.status; });

  it(
    `50 sign-ins at once, 49 wrong and the right one last: at most ${LOGIN_MAX_FAILURES_PER_EMAIL} password checks`,
    async () => {
      const urls = await servers();
      const attempts = Array.from({ length: 50 }, (_, i) => (i === 49 ? ADMIN_PASSWORD : `wrong-${i}`));
      const statuses = await Promise.all(attempts.map((pw, i) => signIn(urls[i % urls.length], ADMIN_EMAIL, pw)));
      const t = tally(statuses);
      if (t[200]) {
        // The right password was among the first checked: a success clears the e-mail's count, so at most the
        // limit of wrong ones before it and the limit after it.
        expect(t[401]).toBeLessThanOrEqual(2 * LOGIN_MAX_FAILURES_PER_EMAIL);
      } else {
        // Exactly the limit of passwords checked; the rest refused unchecked, and the account stays locked.
        expect(t[401]).toBe(LOGIN_MAX_FAILURES_PER_EMAIL);
        expect(await signIn(urls[0], ADMIN_EMAIL, ADMIN_PASSWORD)).toBe(429);
      }
      expect(t[429]).toBe(50 - (t[401] ?? 0) - (t[200] ?? 0));
    },
  );

  it(`one address guessing many e-mails at once gets at most ${LOGIN_MAX_FAILURES_PER_IP} checks`, async () => {
    const urls = await servers();
    const statuses = await Promise.all(
      Array.from({ length: 60 }, (_, i) => signIn(urls[i % urls.length], `guess${i}@example.com`, 'nope')),
    );
    const t = tally(statuses);
    expect(t[401]).toBe(LOGIN_MAX_FAILURES_PER_IP);
    expect((t[401] ?? 0) + (t[429] ?? 0)).toBe(60);
  });
});
