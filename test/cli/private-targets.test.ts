// Private targets (localhost, 127.0.0.1) for local development: one stored setting, changed with
// `waypost settings set --allow-private-targets`, that a running server (its admin API, its Send test, its worker)
// and every CLI run follow alike; WAYPOST_ALLOW_PRIVATE_TARGETS=true still allows them in a process of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { ensureAdminToken } from '../../src/admin/token.js';
import { startReceiver, type Receiver } from '../console/receiver.js';
import { booking } from '../webhooks/engine/fixtures.js';
import { runCli, tempSqliteUrl } from './run.js';

const ALLOW = 'npx waypost settings set --allow-private-targets true';
const count = (text: string, part: string) => text.split(part).length - 1;

describe('private targets: one setting for the server and the CLI', { timeout: 120_000 }, () => {
  const DATABASE_URL = tempSqliteUrl();
  const env = { DATABASE_URL }; // no WAYPOST_ALLOW_PRIVATE_TARGETS anywhere: the production default
  let server: Waypost;
  let base: string;
  let token: string;
  let receiver: Receiver;
  let webhookId: string;

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/admin/api${path}`, {
      method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await createWaypost({ env, config: { port: 0, host: '127.0.0.1', pollMs: 50 },
      logger: createLogger('silent') });
    base = (await server.serve('all')).url!;
    token = (await ensureAdminToken(server.core))!;
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  it('refuses 127.0.0.1 in the CLI as the console does, naming the address once and saying how to allow it',
    async () => {
      const cli = await runCli(['webhooks', 'create', '--name', 'Local', '--url', receiver.url,
        '--events', 'booking.created'], env);
      expect(cli.code).toBe(1);
      expect(cli.stderr).toBe('waypost: 127.0.0.1 is a private, loopback, link-local or metadata address; webhooks '
        + `must target a public one (for local development, allow private targets: ${ALLOW})\n`);
      expect(count(cli.stderr, '127.0.0.1')).toBe(1);

      const named = await runCli(['webhooks', 'create', '--name', 'Local', '--url', 'http://localhost:9/in',
        '--events', 'booking.created'], env);
      expect(named.stderr).toMatch(/^waypost: localhost \((127\.0\.0\.1|::1)\) is a private, loopback/);

      const input = { name: 'Local', url: receiver.url, events: ['booking.created'] };
      const viaConsole = await admin('POST', '/webhooks', input);
      expect(viaConsole.status).toBe(400);
      expect(viaConsole.body).toMatchObject({ code: 'private_target', field: 'url', detail: cli.stderr.slice(9, -1) });
    });

  it('once allowed with `waypost settings set`, the CLI and the running server both send to it', async () => {
    const set = await runCli(['settings', 'set', '--allow-private-targets', 'true'], env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^private targets: +allowed for every process on this database/m);

    const created = await runCli(['webhooks', 'create', '--name', 'Local', '--url', receiver.url,
      '--events', 'booking.created', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    webhookId = JSON.parse(created.stdout).id;

    const test = await runCli(['webhooks', 'test', webhookId], env);
    expect(test.code, test.stderr).toBe(0);
    expect(test.stdout).toMatch(/^result: +success$/m);
    expect(test.stdout).toMatch(/^status: +200$/m);

    // The server was started before the change, in its own Waypost (another process would do the same).
    const sendTest = await admin('POST', `/webhooks/${webhookId}/test`, {});
    expect(sendTest.status).toBe(200);
    expect(sendTest.body).toMatchObject({ success: true, response: { status: 200 } });

    // Its worker delivers a real event there too.
    const before = receiver.requests.length;
    await server.put('bookings', 9001, booking());
    await expect.poll(() => receiver.requests.slice(before)
      .some((r) => r.headers['x-waypost-event'] === 'booking.created'), { timeout: 15_000 }).toBe(true);

    expect((await admin('GET', '/settings')).body.private_targets).toEqual({ allowed: true, source: 'setting' });
  });

  it('is changed from the server\'s shell only: the console\'s settings API refuses to change it', async () => {
    const put = await admin('PUT', '/settings', { allow_private_targets: false });
    expect(put.status).toBe(403);
    expect(put.body).toMatchObject({ code: 'server_setting' });
    expect(put.body.detail).toContain('npx waypost settings set --allow-private-targets');
    expect((await admin('GET', '/settings')).body.private_targets.allowed).toBe(true);
  });

  it('refused again once set back to false, by the CLI and the running server', async () => {
    const set = await runCli(['settings', 'set', '--allow-private-targets', 'false'], env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^private targets: +refused \(webhooks must target public addresses/m);

    const test = await runCli(['webhooks', 'test', webhookId], env);
    expect(test.code).toBe(1);
    expect(test.stdout).toMatch(/^error: +refused to connect to 127\.0\.0\.1: a private address \(for local/m);

    const sendTest = await admin('POST', `/webhooks/${webhookId}/test`, {});
    expect(sendTest.body).toMatchObject({ success: false, response: null });
    expect(sendTest.body.error).toMatch(/^refused to connect to 127\.0\.0\.1: a private address/);
  });

  it('still follows WAYPOST_ALLOW_PRIVATE_TARGETS=true in a process\'s environment', async () => {
    const withEnv = { ...env, WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' };
    const get = await runCli(['settings', 'get'], withEnv);
    expect(get.stdout).toMatch(/^private targets: +allowed \(WAYPOST_ALLOW_PRIVATE_TARGETS=true in this process/m);
    const test = await runCli(['webhooks', 'test', webhookId], withEnv);
    expect(test.code, test.stdout).toBe(0);
    const bad = await runCli(['settings', 'set', '--allow-private-targets', 'maybe'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Give true or false.');
  });
});
