// End to end: `waypost webhooks rotate-secret` (the real CLI, tsx src/cli/main.ts) against a temporary SQLite
// database and a real local receiver, checked with the Standard Webhooks reference library.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliJson, tempSqliteUrl } from '../../cli/run.js';
import { startReceiver, type Received, type Receiver } from './fixtures.js';

const verifies = (secret: string, { body, headers }: Received): boolean => {
  try {
    new Webhook(secret).verify(body, {
      'webhook-id': String(headers['webhook-id']), 'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
};

// Each run starts a process (a few seconds on a busy machine), so the tests get generous time limits.
describe('waypost webhooks rotate-secret', { timeout: 180_000 }, () => {
  const env = { DATABASE_URL: tempSqliteUrl(), WAYPOST_ALLOW_PRIVATE_TARGETS: 'true',
    WAYPOST_SECRET_KEY: 'a-master-key-of-32-characters-ok' };
  let receiver: Receiver;
  const waypost = (...args: string[]) => runCli(args, env);
  const json = (...args: string[]) => runCliJson(args, env);
  beforeAll(async () => { receiver = await startReceiver(); });
  afterAll(async () => receiver.close());

  it('keeps the old secret signing for the grace period, and --grace 0 stops it at once', async () => {
    const hook = await json('webhooks', 'create', '--name', 'Rotating', '--url', receiver.url, '--events', 'all');
    const before = Date.now();
    const rotated = await json('webhooks', 'rotate-secret', hook.id, '--grace', '30m');
    expect(rotated).toMatchObject({ id: hook.id, grace_seconds: 1800 });
    expect(rotated.secret).toMatch(/^whsec_/);
    const expires = Date.parse(rotated.previous_secret_expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 1_800_000 - 1000);
    expect(expires).toBeLessThan(Date.now() + 1_800_000 + 1000);

    expect((await waypost('webhooks', 'test', hook.id)).code).toBe(0);
    const during = receiver.received.at(-1)!;
    expect(verifies(rotated.secret, during)).toBe(true);
    expect(verifies(hook.secret, during)).toBe(true);
    const shown = await waypost('webhooks', 'show', hook.id);
    expect(shown.stdout).toContain(`also signs until ${rotated.previous_secret_expires_at}`);

    const human = await waypost('webhooks', 'rotate-secret', hook.id, '--grace', '0');
    expect(human.code, human.stderr).toBe(0);
    const secret = /secret:\s+(whsec_\S+)/.exec(human.stdout)![1]!;
    expect(human.stdout).toContain('stopped signing now');
    expect((await waypost('webhooks', 'test', hook.id)).code).toBe(0);
    const after = receiver.received.at(-1)!;
    expect(verifies(secret, after)).toBe(true);
    expect(verifies(rotated.secret, after)).toBe(false);
  });

  it('refuses a grace outside 0 to 7 days in one clear line, with or without --json', async () => {
    const hook = await json('webhooks', 'create', '--name', 'Bounds', '--url', receiver.url, '--events', 'all');
    const bad = await waypost('webhooks', 'rotate-secret', hook.id, '--grace', '8d');
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('--grace: expected 0 or a duration from 1s to 7d');
    const badJson = await waypost('webhooks', 'rotate-secret', hook.id, '--grace', 'soon', '--json');
    expect(badJson.code).toBe(1);
    expect(JSON.parse(badJson.stderr)).toMatchObject({ error: { code: 'invalid_field' } });
    expect((await json('webhooks', 'secret', hook.id)).secret).toBe(hook.secret); // unchanged
  });
});
