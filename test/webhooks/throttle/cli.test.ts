// The throttle in the real CLI (tsx src/cli/main.ts) on a temporary SQLite file: `--max-per-second N` on create
// and update, `0` / `none` clears it, list/show/--json show it, bad values exit 1 with a one-line message.
import { describe, expect, it } from 'vitest';
import { runCli, runCliJson, tempSqliteUrl } from '../../cli/run.js';

describe('webhooks --max-per-second in the CLI', { timeout: 180_000 }, () => {
  const env = { DATABASE_URL: tempSqliteUrl(), WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' };
  const waypost = (...args: string[]) => runCli(args, env);
  const json = (...args: string[]) => runCliJson(args, env);
  const create = [
    'webhooks', 'create', '--name', 'Small CRM', '--url', 'https://crm.example.com/in', '--events', 'all',
  ];

  it('sets, shows, changes and clears the limit', async () => {
    const created = await json(...create, '--max-per-second', '20');
    expect(created.max_per_second).toBe(20);
    const id = created.id as string;
    const show = await waypost('webhooks', 'show', id);
    expect(show.stdout).toMatch(/^throttle: +at most 20\/s$/m);
    const list = await waypost('webhooks', 'list');
    expect(list.stdout).toMatch(/LIMIT/);
    expect(list.stdout).toContain('20/s');

    expect((await json('webhooks', 'update', id, '--max-per-second', '5')).max_per_second).toBe(5);
    expect((await json('webhooks', 'update', id, '--max-per-second', 'none')).max_per_second).toBeNull();
    expect((await json('webhooks', 'update', id, '--max-per-second', '7')).max_per_second).toBe(7);
    expect((await json('webhooks', 'update', id, '--max-per-second', '0')).max_per_second).toBeNull();
    expect((await waypost('webhooks', 'show', id)).stdout).toMatch(/^throttle: +none$/m);
    expect((await json(...create)).max_per_second).toBeNull();
  });

  it('refuses a bad value in one line, exit 1, with or without --json', async () => {
    const before = (await json('webhooks', 'list')).length;
    for (const bad of ['abc', '1001', '2.5', '-3']) {
      const run = await waypost(...create, '--max-per-second', bad);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('--max-per-second');
      expect(run.stderr).toContain('1 to 1000');
    }
    const asJson = await waypost(...create, '--max-per-second', 'abc', '--json');
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stderr).error.message).toContain('1 to 1000');
    expect(await json('webhooks', 'list')).toHaveLength(before); // nothing was created
  });
});
