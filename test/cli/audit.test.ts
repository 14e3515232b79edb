// The CLI's door to the audit log: each command that changes webhooks, keys, settings or admin accounts, shows or
// rotates a secret or token, recovers, redelivers or sends a test records who ran it (the OS user, type cli, no
// address), never a secret; `waypost audit list` reads the log with the admin API's filters, as JSON and as a table.
import { userInfo } from 'node:os';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { startReceiver } from '../webhooks/engine/receiver.js';
import { runCli, runCliJson, tempSqliteUrl } from './run.js';

describe('waypost audit', { timeout: 240_000 }, () => {
  const DATABASE_URL = tempSqliteUrl();
  const env = { DATABASE_URL, WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' };
  const json = (...args: string[]) => runCliJson(args, env);

  it('records what each command did, and lists it with filters', async () => {
    const hook = await json('webhooks', 'create', '--name', 'CRM', '--url', 'http://127.0.0.1:9/in',
      '--events', 'booking.created');
    await json('webhooks', 'update', hook.id, '--name', 'CRM 2', '--max-per-second', '5');
    await json('webhooks', 'disable', hook.id);
    await json('webhooks', 'enable', hook.id);
    const shown = await json('webhooks', 'secret', hook.id);
    const regenerated = await json('webhooks', 'secret', hook.id, '--rotate');
    const rotated = await json('webhooks', 'rotate-secret', hook.id, '--grace', '30m');
    await json('deliveries', 'recover', '--webhook', hook.id, '--since', '2026-01-01T00:00:00Z');
    const key = await json('keys', 'create', '--label', 'Shop', '--permissions', 'bookings.list');
    await json('keys', 'update', key.key, '--rate-limit', '50');
    await json('keys', 'disable', key.id);
    await json('keys', 'enable', key.id);
    await json('keys', 'delete', key.key);
    await json('settings', 'set', '--audit-retention-days', '90', '--log-retention-days', '10');
    await json('webhooks', 'delete', hook.id);

    const page = await json('audit', 'list', '--limit', '100');
    expect(page.next).toBeNull();
    const entries = [...page.items].reverse();
    expect(entries.map((e: { action: string; target_id: string | null }) => [e.action, e.target_id])).toEqual([
      ['webhook.created', hook.id], ['webhook.updated', hook.id], ['webhook.disabled', hook.id],
      ['webhook.enabled', hook.id], ['webhook.secret_revealed', hook.id], ['webhook.secret_rotated', hook.id],
      ['webhook.secret_rotated', hook.id], ['webhook.recovered', hook.id],
      ['key.created', key.id], ['key.updated', key.id], ['key.disabled', key.id], ['key.enabled', key.id],
      ['key.deleted', key.id], ['settings.changed', null], ['webhook.deleted', hook.id],
    ]);
    for (const e of entries) expect(e).toMatchObject({ actor_type: 'cli', actor: userInfo().username, ip: null });
    expect(entries[1].details).toEqual({ fields: ['name', 'max_per_second'] });
    expect(entries[6].details).toEqual({ grace_s: 1800 });
    expect(entries[9].details).toEqual({ fields: ['rate_limit'] });
    expect(entries[13].details).toEqual({ fields: ['log_retention_days', 'audit_retention_days'] });
    const printed = JSON.stringify(page);
    for (const secret of [hook.secret, shown.secret, regenerated.secret, rotated.secret, key.secret, key.key]) {
      expect(typeof secret).toBe('string');
      expect(printed).not.toContain(secret);
    }
    expect((await json('settings', 'get')).audit_retention_days).toBe(90);

    // Filters, as the admin API's.
    const keys = await json('audit', 'list', '--target', key.id);
    expect(keys.items).toHaveLength(5);
    expect((await json('audit', 'list', '--action', 'webhook.secret_rotated')).items).toHaveLength(2);
    expect((await json('audit', 'list', '--actor-type', 'host')).items).toEqual([]);
    const first = await json('audit', 'list', '--limit', '10');
    expect(first.items).toHaveLength(10);
    const rest = await json('audit', 'list', '--after', first.next);
    expect([...first.items, ...rest.items].map((e: { id: string }) => e.id)).toEqual(page.items.map(
      (e: { id: string }) => e.id));

    // A table without --json, newest first.
    const table = await runCli(['audit', 'list', '--limit', '2'], env);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^TIME +ACTOR +ACTION +TARGET +DETAILS +IP$/);
    expect(lines[1]).toMatch(new RegExp(`${userInfo().username} \\(cli\\) +webhook\\.deleted +${hook.id}`));
    expect(lines[2]).toMatch(/settings\.changed +settings +fields: log_retention_days, audit_retention_days +-$/);
    expect(lines[3]).toMatch(/^\(more: --after aud_[0-9a-f]{28}\)$/);
  });

  it('refuses a filter that is not one, and records nothing for a refused command', async () => {
    const before = (await json('audit', 'list', '--limit', '100')).items.length;
    const badAction = await runCli(['audit', 'list', '--action', 'webhook.exploded'], env);
    expect(badAction.code).not.toBe(0);
    expect(badAction.stderr).toMatch(/webhook\.created/);
    const badSince = await runCli(['audit', 'list', '--since', 'yesterday', '--json'], env);
    expect(badSince.code).not.toBe(0);
    expect(badSince.stderr).toMatch(/since/);
    const refused = await runCli(['keys', 'create', '--label', 'x', '--permissions', 'nothing.list'], env);
    expect(refused.code).not.toBe(0);
    expect((await json('audit', 'list', '--limit', '100')).items).toHaveLength(before);
  });

  it('records replaced tokens, admin accounts, a test send and a redelivery, never a token or password', async () => {
    const receiver = await startReceiver();
    try {
      const hook = await json('webhooks', 'create', '--name', 'Tested', '--url', receiver.url,
        '--events', 'booking.created');
      const host = await json('host-token', '--rotate');
      const admin = await json('admin', 'token', '--rotate');
      const created = await json('admin', 'create', '--email', 'ops@example.com', '--password', 'a long password 1');
      await json('admin', 'password', '--email', 'OPS@example.com', '--password', 'another long password 2');
      const tested = await json('webhooks', 'test', hook.id);
      const again = await json('deliveries', 'redeliver', tested.delivery_id);

      const all = [...(await json('audit', 'list', '--limit', '100')).items].reverse();
      const mine = all.slice(all.findIndex((e: { target_id: string }) => e.target_id === hook.id) + 1);
      expect(mine.map((e: { action: string; target_id: string | null; details: unknown }) =>
        [e.action, e.target_id, e.details])).toEqual([
        ['host_token.rotated', null, null], ['admin_token.rotated', null, null], ['admin.created', created.id, null],
        ['admin.password_changed', created.id, null], ['webhook.tested', hook.id, { event_type: 'booking.created' }],
        ['delivery.redelivered', tested.delivery_id, { webhook: hook.id, delivery: again.id }],
      ]);
      const printed = JSON.stringify(mine);
      for (const secret of [host.token, admin.token, 'a long password 1', 'another long password 2']) {
        expect(typeof secret).toBe('string');
        expect(printed).not.toContain(secret);
      }
    } finally {
      await receiver.close();
    }
  });

  it('records the console\'s settings and the server\'s private-target setting, each when it changed', async () => {
    const count = async () => (await json('audit', 'list', '--limit', '100')).items.length;
    const before = await count();
    await json('settings', 'set', '--payload-retention-days', '5', '--allow-private-targets', 'true');
    const [targets, payloads] = (await json('audit', 'list', '--action', 'settings.changed', '--limit', '2')).items;
    expect([payloads.details, targets.details]).toEqual([
      { fields: ['payload_retention_days'] }, { fields: ['allow_private_targets'] },
    ]);
    expect(await count()).toBe(before + 2);
    // The same values again change nothing, and nothing is recorded.
    await json('settings', 'set', '--payload-retention-days', '5', '--allow-private-targets', 'true');
    expect(await count()).toBe(before + 2);
  });

  it('changes no token, account or password when the audit entry cannot be written', async () => {
    await json('admin', 'create', '--email', 'kept@example.com', '--password', 'a long password 3');
    const file = new Database(DATABASE_URL.slice('sqlite:'.length));
    const state = () => JSON.stringify([file.prepare('SELECT * FROM settings ORDER BY name').all(),
      file.prepare('SELECT * FROM admins ORDER BY id').all()]);
    file.exec(`CREATE TRIGGER test_refuse_audit BEFORE INSERT ON audit_log
      BEGIN SELECT RAISE(ABORT, 'the audit log cannot be written'); END`);
    try {
      const before = state();
      for (const args of [['host-token', '--rotate'], ['admin', 'token', '--rotate'],
        ['admin', 'create', '--email', 'new@example.com', '--password', 'a long password 4'],
        ['admin', 'password', '--email', 'kept@example.com', '--password', 'another long password 5']]) {
        const run = await runCli([...args, '--json'], env);
        expect(run.code, args.join(' ')).not.toBe(0);
        expect(run.stdout, args.join(' ')).not.toMatch(/wp[ha]_/); // no token shown that was never stored
      }
      expect(state()).toBe(before); // the old tokens still work, no new account, the old password
    } finally {
      file.exec('DROP TRIGGER test_refuse_audit');
      file.close();
    }
  });
});
