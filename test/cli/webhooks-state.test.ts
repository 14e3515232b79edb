// How `waypost webhooks list|show` and the delivery commands describe a webhook's state and a delivery's outcome:
// who disabled it (nobody, an admin, Waypost), and status lines without doubled punctuation or stray spaces.
import { describe, expect, it } from 'vitest';
import { createWaypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { disableWebhook } from '../../src/webhooks/disable.js';
import { runCli, runCliJson, tempSqliteUrl, type CliResult } from './run.js';

// Every human line the test saw, checked at the end for "..", ".)." and double spaces after a colon.
const seen: string[] = [];

describe('webhook state in the CLI', { timeout: 240_000 }, () => {
  const DATABASE_URL = tempSqliteUrl();
  const env = { DATABASE_URL, WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' };
  const cli = async (...args: string[]): Promise<CliResult> => {
    const run = await runCli(args, env);
    if (!args.includes('--json')) seen.push(run.stdout, run.stderr);
    return run;
  };
  const json = (...args: string[]) => runCliJson(args, env);
  const stateIn = (list: string, name: string) => {
    const [header, ...rows] = list.trim().split('\n');
    const col = header!.indexOf('STATE');
    return rows.find((r) => r.includes(` ${name} `))!.slice(col).split(/\s+/)[0];
  };

  it('a webhook created --inactive is plain "disabled", not "disabled by an admin"', async () => {
    const created = await cli('webhooks', 'create', '--name', 'Paused', '--url', 'https://example.com/in',
      '--events', 'all', '--inactive');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^state: +disabled$/m);
    expect(created.stdout).not.toMatch(/admin/i);
    expect(created.stdout).toMatch(/^events: +booking\.created, booking\.updated, .*review\.created$/m);
    const [paused] = await json('webhooks', 'list');
    expect(paused).toMatchObject({ name: 'Paused', active: false, disabled_reason: null });
    expect(stateIn((await cli('webhooks', 'list')).stdout, 'Paused')).toBe('disabled');
    const unchanged = await cli('webhooks', 'update', paused.id);
    expect([unchanged.code, unchanged.stderr])
      .toEqual([1, 'waypost: give --name, --url, --events, --max-per-second, --filter, --ordering and/or --payload '
        + '(enable and disable are commands)\n']);
  });

  it('says who disabled a webhook: an admin, or Waypost with its reason', async () => {
    const hook = await json('webhooks', 'create', '--name', 'Flaky', '--url', 'http://127.0.0.1:9/in', '--events',
      'booking.created');
    const test = await cli('webhooks', 'test', hook.id); // nothing listens on port 9: a failed delivery
    expect(test.code).toBe(1);
    expect(test.stdout).toMatch(/^error: +connect ECONNREFUSED/m);

    expect((await cli('webhooks', 'disable', hook.id)).stdout).toBe(`Webhook ${hook.id} (Flaky) disabled.\n`);
    const shown = await cli('webhooks', 'get', hook.id); // `get` is `show`
    expect(shown.stdout).toMatch(/^state: +disabled by an admin$/m);
    expect(shown.stdout).toMatch(/^last delivery: failed \d{4}-\S+ \(dlv_\w+\)$/m);

    const [delivery] = (await json('deliveries', 'list', '--webhook', hook.id)).items;
    // The console's From/To filters.
    const [since, until, bad] = await Promise.all([
      json('deliveries', 'list', '--since', delivery.created_at),
      json('deliveries', 'list', '--until', delivery.created_at),
      cli('deliveries', 'list', '--since', 'yesterday'),
    ]);
    expect([since.total, until.total]).toEqual([1, 0]);
    expect(bad.stderr).toBe('waypost: since: must be an ISO 8601 time, e.g. 2026-01-31T00:00:00Z (got "yesterday")\n');
    const detail = await cli('deliveries', 'show', delivery.id);
    expect(detail.stdout).toMatch(/^#1 \S+ \d+ ms failed: connect ECONNREFUSED 127\.0\.0\.1:9$/m);
    const refused = await cli('deliveries', 'redeliver', delivery.id);
    expect(refused.code).toBe(1);
    expect(refused.stderr)
      .toBe('waypost: The webhook "Flaky" is disabled (Disabled by an admin). Re-enable it first, then redeliver.\n');

    // What the delivery engine records when the last attempt fails.
    const wp = await createWaypost({ env: {}, logger: createLogger('silent'), config: { databaseUrl: DATABASE_URL } });
    try {
      const reason = `5 consecutive failed attempts for delivery ${delivery.id} (last error: HTTP 500).`;
      await disableWebhook(wp.core.db, wp.core, hook.id, reason);
    } finally {
      await wp.close();
    }
    expect(stateIn((await cli('webhooks', 'list')).stdout, 'Flaky')).toBe('auto-disabled');
    const reason = `5 consecutive failed attempts for delivery ${delivery.id} \\(last error: HTTP 500\\)`;
    const shownAgain = await cli('webhooks', 'show', hook.id);
    expect(shownAgain.stdout).toMatch(new RegExp(`^state: +disabled by Waypost: ${reason}$`, 'm'));
  });

  it('prints no doubled punctuation in any of those lines', () => {
    const lines = seen.join('\n').split('\n');
    // Aligned "key:   value" lines pad after their first colon; anywhere else two spaces after a colon are a gap.
    const doubled = (l: string) => /(?<!\.)\.\.(?!\.)|\.\)\./.test(l);
    const bad = lines.filter((l) => doubled(l) || /\S: {2,}/.test(l.replace(/^[a-z][a-z -]*: +/i, '')));
    expect(bad).toEqual([]);
    expect(lines.length).toBeGreaterThan(20);
  });
});
