// `waypost admin create|password|token` on a real SQLite file, checked through the admin API. In-process (run());
// the password "from a pipe" is a stream that is not a terminal, which is what the CLI looks at.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/db.js';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { runCli } from '../cli/run.js';

let databaseUrl: string;

const waypost = (args: string[], input?: string) =>
  runCli(args, { DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }, input);

describe('admin CLI', () => {
  let wp: Waypost;
  const signIn = async (password: string) =>
    (await wp.app())
      .inject({ method: 'POST', url: '/admin/api/session', payload: { email: 'cli@example.com', password } });

  beforeAll(async () => {
    databaseUrl = await freshDatabaseUrl('sqlite');
    wp = await createWaypost({ env: {}, config: { databaseUrl }, logger: createLogger('silent') });
  });
  afterAll(async () => wp?.close());

  it('creates an admin with the password read from a pipe, and refuses the same e-mail twice', async () => {
    const created = await waypost(['admin', 'create', '--email', 'Cli@Example.com'], 'first password 1\n');
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Created admin cli@example\.com\. Sign in at http:\/\/.+\/admin\/\n$/);
    const again = await waypost(['admin', 'create', '--email', 'cli@example.com', '--password', 'another password']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
    const weak = await waypost(['admin', 'create', '--email', 'weak@example.com', '--password', 'short']);
    expect(weak.code).toBe(1);
    expect(weak.stderr).toContain('at least 10 characters');
  });

  it('the created admin signs in to the console', async () => {
    expect((await signIn('first password 1')).statusCode).toBe(200);
  });

  it('changes a password: the old one stops working and existing sessions end', async () => {
    const before = await signIn('first password 1');
    const cookie = String(before.headers['set-cookie']).split(';')[0]!;
    const changed = await waypost(
      ['admin', 'password', '--email', 'cli@example.com', '--password', 'second password 2']);
    expect(changed.code).toBe(0);
    expect((await signIn('first password 1')).statusCode).toBe(401);
    expect((await signIn('second password 2')).statusCode).toBe(200);
    expect((await (await wp.app()).inject({ method: 'GET', url: '/admin/api/settings', headers: { cookie } }))
      .statusCode).toBe(401);
    expect((await waypost(['admin', 'password', '--email', 'nobody@example.com', '--password', 'whatever 12345']))
      .code).toBe(1);
  });

  it('lists the admin accounts, without passwords', async () => {
    const human = await waypost(['admin', 'list']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout)
      .toMatch(/^ID +E-MAIL +CREATED +LAST SIGN-IN +MADE BY\nadm_\w+ +cli@example\.com +\S+ +\S+ +password\n$/);
    const json = await waypost(['admin', 'list', '--json']);
    const admins = JSON.parse(json.stdout);
    expect(admins).toEqual([{
      id: expect.stringMatching(/^adm_/), email: 'cli@example.com',
      created_at: expect.any(String), last_login_at: expect.any(String), created_via: null,
    }]);
    expect(json.stdout).not.toMatch(/password|scrypt/i);
  });

  it('prints the admin token, which authenticates scripts', async () => {
    const { code, stdout } = await waypost(['admin', 'token']);
    expect(code).toBe(0);
    const token = stdout.trim();
    expect(token).toMatch(/^wpa_/);
    const res = await (await wp.app())
      .inject({ method: 'GET', url: '/admin/api/settings', headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(200);
    expect(res.json().alert_email).toBe('cli@example.com'); // the first admin is the default alert recipient
  });
});
