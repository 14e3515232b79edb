// How the CLI fails: the same exit code with or without --json; with --json, one JSON object on stderr and nothing
// on stdout, so a script can rely on both.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliProcess, tempSqliteUrl } from './run.js';

const packageJson = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
const { version } = JSON.parse(packageJson) as { version: string };

describe('waypost --version', { timeout: 60_000 }, () => {
  it('prints the package version', async () => {
    for (const flag of ['--version', '-V']) {
      const run = await runCli([flag], {});
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe(`${version}\n`);
    }
  });
});

describe('failures with and without --json', { timeout: 120_000 }, () => {
  const DATABASE_URL = tempSqliteUrl();
  // Migrated first: each case runs the CLI twice at once, and two first starts would both create the tables.
  beforeAll(async () => expect((await runCli(['migrate'], { DATABASE_URL })).code).toBe(0));
  interface Case {
    what: string;
    args: string[];
    env?: Record<string, string>;
    code: string;
    exit: number;
    human: RegExp;
    /** Through a real process and its pipes (main.ts's exit code; the JSON whole on stderr), not run() in-process. */
    process?: boolean;
  }
  const cases: Case[] = [
    {
      what: 'an unknown webhook', args: ['webhooks', 'show', 'wh_nope'], code: 'not_found', exit: 1,
      human: /^waypost: Webhook wh_nope was not found\n$/, process: true,
    },
    {
      what: 'an unknown API key', args: ['keys', 'disable', 'key_nope'], code: 'not_found', exit: 1,
      human: /^waypost: API key key_nope was not found\n$/,
    },
    {
      what: 'a bad option value',
      args: ['keys', 'create', '--label', 'x', '--permissions', 'bookings.list', '--rate-limit', '0'],
      code: 'invalid_argument', exit: 1,
      human: /^error: option '--rate-limit <n>' argument '0' is invalid\. Give a whole number of requests per window/,
    },
    {
      what: 'an unknown command', args: ['deliveries', 'lists'], code: 'unknown_command', exit: 1,
      human: /^error: unknown command 'lists'/,
    },
    {
      what: 'a bad setting', args: ['settings', 'set', '--log-retention-days', '0'], code: 'invalid_retention', exit: 1,
      human: /^waypost: Log retention must be a whole number of days from 1 to 3650\.\n$/,
    },
    {
      what: 'invalid configuration', args: ['keys', 'list'], env: { PORT: 'abc' }, code: 'invalid_configuration',
      exit: 2, human: /^waypost: invalid configuration: PORT: /,
    },
    {
      what: 'an unreachable database', args: ['webhooks', 'list'],
      env: { DATABASE_URL: 'postgres://127.0.0.1:1/waypost' },
      code: 'database_unavailable', exit: 1,
      human: /^waypost: cannot reach the database \(DATABASE_URL\): connect ECONNREFUSED/,
    },
  ];

  it.each(cases)('$what: exit $exit, a line for people or {"error":{…}} on stderr', async (c) => {
    const { args, env, code, exit, human } = c;
    const waypost = c.process ? runCliProcess : runCli;
    const [asText, asJson] = await Promise.all([
      waypost(args, { DATABASE_URL, ...env }),
      waypost([...args, '--json'], { DATABASE_URL, ...env }),
    ]);
    expect(asText.code).toBe(exit);
    expect(asText.stderr).toMatch(human);
    expect(asText.stdout).toBe('');
    expect(asJson.code).toBe(exit);
    expect(asJson.stdout).toBe('');
    const body = JSON.parse(asJson.stderr);
    expect(body).toEqual({ error: { code, message: expect.any(String) } });
    expect(body.error.message).not.toMatch(/^error:/);
  });
});
