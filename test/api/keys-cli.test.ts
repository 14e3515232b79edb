import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { runCli, tempSqliteUrl } from '../cli/run.js';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { apiRoot } from '../../src/config.js';
import { apiServices } from '../../src/api/install.js';
import { rotateAdminToken } from '../../src/admin/token.js';

describe('waypost keys (CLI, real process, SQLite file)', { timeout: 180_000 }, () => {
  const DATABASE_URL = tempSqliteUrl();
  const env = { DATABASE_URL };
  let wp: Waypost;
  let app: FastifyInstance;
  beforeAll(async () => {
    wp = await createWaypost({ env: {}, logger: createLogger('silent'), config: { databaseUrl: DATABASE_URL } });
    app = await wp.app();
  });
  afterAll(async () => wp.close());

  const test = (headers: Record<string, string>) => app.inject({ url: `${apiRoot(wp.config)}/test`, headers });

  it('creates a key whose secret is printed once and works against the server', async () => {
    const created = await runCli(['keys', 'create', '--label', 'Partner app', '--permissions',
      'bookings.list,trips.read', '--rate-limit', '120', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const k = JSON.parse(created.stdout);
    expect(Object.keys(k)).toEqual(expect.arrayContaining(['id', 'key', 'secret', 'permissions']));
    expect(k.permissions).toEqual(['bookings.list', 'trips.read']);
    expect(k.rate_limit).toBe(120);
    const auth = { 'access-token': k.key, 'access-secret': k.secret };
    const ok = await test(auth);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['x-ratelimit-limit']).toBe('120');

    const list = await runCli(['keys', 'list', '--json'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toContain(k.secret);
    expect(list.stdout).not.toContain(k.key);
    const listed = JSON.parse(list.stdout).find((x: { id: string }) => x.id === k.id);
    expect(listed).toMatchObject({ label: 'Partner app', active: true, key: `${k.key.slice(0, 12)}…` });
    const human = await runCli(['keys', 'list'], env);
    expect(human.stdout).toContain('Partner app');

    expect((await runCli(['keys', 'disable', k.id], env)).code).toBe(0);
    expect((await test(auth)).json().code).toBe('key_disabled');
    expect((await runCli(['keys', 'enable', k.key], env)).code).toBe(0); // by key works too
    expect((await test(auth)).statusCode).toBe(200);
    expect((await runCli(['keys', 'delete', k.id, '--json'], env)).code).toBe(0);
    expect((await test(auth)).json().code).toBe('unknown_key');
  });

  it('refuses an unknown permission, naming it, and creates nothing', async () => {
    const res = await runCli(['keys', 'create', '--label', 'x', '--permissions', 'bookings.list,bookings.write'], env);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('bookings.write');
    const list = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout);
    expect(list.find((x: { label: string }) => x.label === 'x')).toBeUndefined();
  });

  it('reports an unknown key id', async () => {
    const res = await runCli(['keys', 'disable', 'key_nope'], env);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('key_nope');
  });

  const createKey = async (...extra: string[]) => {
    const args = ['keys', 'create', '--label', 'Editable', '--permissions', 'bookings.list', ...extra, '--json'];
    const run = await runCli(args, env);
    expect(run.code, run.stderr).toBe(0);
    const k = JSON.parse(run.stdout);
    return { ...k, auth: { 'access-token': k.key, 'access-secret': k.secret } };
  };
  const get = (path: string, headers: Record<string, string>) =>
    app.inject({ url: `${apiRoot(wp.config)}/${path}`, headers });

  it('updates a key\'s label, permissions and rate limit; the server applies them on the next request', async () => {
    const k = await createKey();
    expect((await get('trips', k.auth)).json().code).toBe('missing_permission');

    const updated = await runCli(
      ['keys', 'update', k.id, '--label', 'Renamed', '--permissions', 'trips.list, trips.read', '--rate-limit', '5'],
      env,
    );
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(/^Updated API key key_\w+; the next request with it sees the change\.$/m);
    expect(updated.stdout).toMatch(/^label: +Renamed$/m);
    expect(updated.stdout).toMatch(/^permissions: +trips\.list, trips\.read$/m);
    expect(updated.stdout).toMatch(/^rate limit: +5 requests per 60 s$/m);
    const trips = await get('trips', k.auth); // same secret, new permissions and limit
    expect(trips.statusCode).toBe(200);
    expect(trips.headers['x-ratelimit-limit']).toBe('5');
    expect((await get('bookings', k.auth)).json().code).toBe('missing_permission');

    const back = await runCli(['keys', 'update', k.key, '--rate-limit', 'default', '--json'], env); // by key works too
    expect(back.code, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({
      id: k.id, label: 'Renamed', permissions: ['trips.list', 'trips.read'], rate_limit: null,
      key: `${k.key.slice(0, 12)}…`,
    });
    expect((await get('trips', k.auth)).headers['x-ratelimit-limit']).toBe(String(wp.config.rateLimit));
  });

  it('refuses an update that is empty, unknown or invalid, and changes nothing', async () => {
    const k = await createKey('--rate-limit', '50');
    const runs = await Promise.all([
      runCli(['keys', 'update', k.id], env),
      runCli(['keys', 'update', 'key_nope', '--label', 'x'], env),
      runCli(['keys', 'update', k.id, '--permissions', 'bookings.write', '--label', 'Changed'], env),
      runCli(['keys', 'update', k.id, '--rate-limit', '0', '--json'], env),
    ]);
    expect(runs.map((r) => r.code)).toEqual([1, 1, 1, 1]);
    expect(runs[0]!.stderr).toBe('waypost: give --label, --permissions and/or --rate-limit\n');
    expect(runs[1]!.stderr).toBe('waypost: API key key_nope was not found\n');
    expect(runs[2]!.stderr).toContain('unknown permission "bookings.write"');
    expect(JSON.parse(runs[3]!.stderr).error)
      .toMatchObject({ code: 'invalid_argument', message: expect.stringContaining('1 to 1000000') });
    const list = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as Array<{ id: string }>;
    const listed = list.find((x) => x.id === k.id);
    expect(listed).toMatchObject({ label: 'Editable', permissions: ['bookings.list'], rate_limit: 50 });
  });

  it('shows per-key usage like the console\'s usage API, and one key day by day', async () => {
    const k = await createKey();
    for (const path of ['bookings', 'bookings', 'bookings?perpage=0', 'trips']) await get(path, k.auth); // 2 OK, 2 4xx
    await apiServices(wp.core).usage.flush(); // a server writes its counts every few seconds; the CLI reads them
    const token = await rotateAdminToken(wp.core);
    const [asJson, table, one] = await Promise.all([
      runCli(['keys', 'usage', '--json'], env),
      runCli(['keys', 'usage'], env),
      runCli(['keys', 'usage', k.id, '--days', '3'], env),
    ]);
    expect(asJson.code, asJson.stderr).toBe(0);
    const headers = { authorization: `Bearer ${token}` };
    const fromConsole = (await app.inject({ url: '/admin/api/keys/usage', headers })).json();
    const usage = JSON.parse(asJson.stdout);
    expect(usage).toEqual(fromConsole);
    const mine = usage.keys.find((u: { key_id: string }) => u.key_id === k.id);
    expect(mine.totals).toEqual({ requests: 4, client_errors: 2, rate_limited: 0 });

    expect(table.stdout).toMatch(/^Last 7 days:\nKEY +LABEL +REQUESTS +4XX +429$/m);
    expect(table.stdout).toMatch(new RegExp(`^${k.id} +Editable +4 +2 +0$`, 'm'));
    const today = new Date().toISOString().slice(0, 10);
    const lines = one.stdout.trim().split('\n');
    expect(lines[0]).toBe(`Editable (${k.id}), last 3 days:`);
    expect(lines).toHaveLength(6); // title, header, 3 days (quiet ones as 0), total
    expect(lines.at(-2)).toMatch(new RegExp(`^${today} +4 +2 +0$`));
    expect(lines.at(-1)).toMatch(/^total +4 +2 +0$/);
    expect((await runCli(['keys', 'usage', 'key_nope'], env)).stderr).toBe('waypost: API key key_nope was not found\n');
  });
});
