// `waypost settings get|set`: the console's Settings page from a terminal, checked through the console's own API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { ensureAdminToken } from '../../src/admin/token.js';
import { runCli, tempSqliteUrl } from './run.js';

describe('waypost settings', { timeout: 180_000 }, () => {
  const DATABASE_URL = tempSqliteUrl();
  const env = { DATABASE_URL };
  let wp: Waypost;
  let app: FastifyInstance;
  let token: string;
  const consoleSettings = async () =>
    (await app.inject({ url: '/admin/api/settings', headers: { authorization: `Bearer ${token}` } })).json();

  beforeAll(async () => {
    wp = await createWaypost({ env: {}, logger: createLogger('silent'), config: { databaseUrl: DATABASE_URL } });
    app = await wp.app();
    token = (await ensureAdminToken(wp.core))!;
  });
  afterAll(async () => wp?.close());

  it('shows the defaults, in words and as the console\'s JSON', async () => {
    const [human, json] = await Promise.all([
      runCli(['settings', 'get'], env),
      runCli(['settings', 'get', '--json'], env),
    ]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^alert e-mail: +nobody yet: set one, or create an admin$/m);
    expect(human.stdout).toMatch(/^log retention: +30 days$/m);
    expect(human.stdout)
      .toMatch(/^e-mail delivery: +SMTP_URL is not set: alerts are stored and shown in `waypost alerts list`$/m);
    expect(JSON.parse(json.stdout)).toEqual(await consoleSettings());
  });

  it('changes what the console shows, and "" returns the alert address to the default', async () => {
    const set = await runCli(['settings', 'set', '--alert-email', ' ops@example.com ', '--log-retention-days', '14'],
      env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^Settings saved\.\nalert e-mail: +ops@example\.com \(set here\)$/m);
    expect(await consoleSettings())
      .toMatchObject({ alert_email: 'ops@example.com', alert_email_source: 'setting', log_retention_days: 14 });

    const admin = await runCli(['admin', 'create', '--email', 'first@example.com', '--password', 'a long password'],
      env);
    expect(admin.code).toBe(0);
    const reset = await runCli(['settings', 'set', '--alert-email', '', '--json'], env);
    expect(reset.code, reset.stderr).toBe(0);
    expect(JSON.parse(reset.stdout))
      .toMatchObject({ alert_email: 'first@example.com', alert_email_source: 'first_admin', log_retention_days: 14 });
    expect(await consoleSettings()).toMatchObject({ alert_email: 'first@example.com', log_retention_days: 14 });
  });

  it('refuses what the console refuses, with its message, and changes nothing', async () => {
    const before = await consoleSettings();
    const runs = await Promise.all([
      runCli(['settings', 'set', '--log-retention-days', '0'], env),
      runCli(['settings', 'set', '--log-retention-days', 'a week'], env),
      runCli(['settings', 'set', '--log-retention-days', '3651', '--alert-email', 'x@example.com'], env),
      runCli(['settings', 'set', '--alert-email', 'not-an-address'], env),
      runCli(['settings', 'set'], env),
    ]);
    expect(runs.map((r) => r.code)).toEqual([1, 1, 1, 1, 1]);
    expect(runs.map((r) => r.stderr)).toEqual([
      ...Array(3).fill('waypost: Log retention must be a whole number of days from 1 to 3650.\n'),
      'waypost: Enter a valid e-mail address, like ops@example.com, or leave it empty to use the default.\n',
      'waypost: give --alert-email, --log-retention-days, --payload-retention-days, --response-retention-days, '
        + '--audit-retention-days and/or --allow-private-targets\n',
    ]);
    expect(await consoleSettings()).toEqual(before);
  });

  it('keeps payloads and responses for their own days within the log\'s; "" keeps them with the delivery', async () => {
    const set = await runCli(['settings', 'set', '--payload-retention-days', '7', '--response-retention-days', '3'],
      env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^payloads kept: +7 days$/m);
    expect(set.stdout).toMatch(/^responses kept: +3 days$/m);
    expect(await consoleSettings()).toMatchObject({ payload_retention_days: 7, response_retention_days: 3 });

    const longer = await runCli(['settings', 'set', '--payload-retention-days', '15'], env); // the log keeps 14
    expect([longer.code, longer.stderr]).toEqual([1, 'waypost: Payload retention must be a whole number of days from '
      + '1 to the log retention (14), or empty to keep it as long as the delivery.\n']);
    const cleared = await runCli(['settings', 'set', '--payload-retention-days', ''], env);
    expect(cleared.stdout).toMatch(/^payloads kept: +as long as the delivery$/m);
    expect(await consoleSettings()).toMatchObject({ payload_retention_days: null, response_retention_days: 3 });
  });
});
