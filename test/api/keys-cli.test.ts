import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { runCli, tempSqliteUrl } from '../cli/run.js';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { apiRoot } from '../../src/config.js';

describe('waypost keys (CLI, real process, SQLite file)', () => {
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
    const created = await runCli(['keys', 'create', '--label', 'Partner app', '--permissions', 'bookings.list,trips.read', '--rate-limit', '120', '--json'], env);
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
});
