// The admin token and a generated host token are kept only as hashes: no table holds them in clear, the CLI shows
// each once, and `--rotate` locks the old one out of a server already running in another process at once.
import { createServer } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import { DIALECTS, freshDatabaseUrl, type TestDialect } from '../helpers/db.js';
import { testWaypost } from '../helpers/waypost.js';
import { killCli, runCli, startCli } from '../cli/run.js';
import { openStore } from '../../src/store/db.js';
import { dialectOf } from '../../src/store/dialect.js';
import { ADMIN_TOKEN_SETTING, ensureAdminToken, rotateAdminToken } from '../../src/admin/token.js';
import { ensureHostToken, HOST_TOKEN_SETTING } from '../../src/host/token.js';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import * as m0001 from '../../src/store/migrations/0001_records.js';
import * as m0002 from '../../src/store/migrations/0002_webhooks.js';
import * as m0003 from '../../src/store/migrations/0003_api_usage.js';
import * as m0004 from '../../src/store/migrations/0004_admin.js';
import * as m0005 from '../../src/store/migrations/0005_change_counters.js';

const NO_HOST_TOKEN_ENV = { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' }; // testWaypost's default sets WAYPOST_HOST_TOKEN

/** Every value in every table, as text: a clear token must be in none of them. */
async function everyValue(db: Kysely<any>): Promise<string> {
  // On PostgreSQL, only this test's schema, asked for by name: Kysely's introspection reads every schema's tables,
  // and fails when another test run drops its schema meanwhile.
  const tables = dialectOf(db) === 'postgres'
    ? (await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = current_schema()`.execute(db)).rows.map((r) => r.name)
    : (await db.introspection.getTables({ withInternalKyselyTables: true })).map((t) => t.name);
  expect(tables).toContain('settings');
  const dumps = await Promise.all(tables.map(async (t) => JSON.stringify(await db.selectFrom(t).selectAll()
    .execute())));
  return dumps.join('\n');
}

async function settings(db: Kysely<any>): Promise<Record<string, string>> {
  const rows = await db.selectFrom('settings').select(['name', 'value']).execute();
  return Object.fromEntries(rows.map((r) => [r.name, r.value]));
}

/** Brings a fresh database to the schema of the release before token hashes (0005), as an upgrade meets it. */
async function migrateToBeforeHashes(db: Kysely<any>): Promise<void> {
  let schema: string | undefined;
  if (dialectOf(db) === 'postgres') {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public`.execute(db).catch(() => undefined);
    schema = (await sql<{ s: string }>`SELECT current_schema() AS s`.execute(db)).rows[0]?.s;
  }
  const migrations: Record<string, Migration> = {
    '0001_records': m0001, '0002_webhooks': m0002, '0003_api_usage': m0003, '0004_admin': m0004,
    '0005_change_counters': m0005,
  };
  const provider = { getMigrations: async () => migrations };
  const migrator = new Migrator({ db, provider, migrationTableSchema: schema });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}

const freePort = () => new Promise<number>((resolve, reject) => {
  const s = createServer().once('error', reject);
  s.listen(0, '127.0.0.1', () => {
    const { port } = s.address() as { port: number };
    s.close(() => resolve(port));
  });
});

/** Starts `waypost serve --role api` in its own process; resolves with what it printed once the banner is out. */
async function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; banner: string }> {
  const child = startCli(['serve', '--role', 'api'], env);
  let stderr = '';
  const banner = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 30 s:\n${stderr}`)), 30_000);
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (/Console /.test(stderr)) { clearTimeout(timer); resolve(stderr); }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`serve exited (${code}):\n${stderr}`)); });
  });
  return { child, banner };
}

describe.each(DIALECTS)('admin and host tokens on %s', (dialect: TestDialect) => {
  let wp: Waypost | undefined;
  let server: ChildProcess | undefined;
  afterEach(async () => {
    if (server) killCli(server);
    server = undefined;
    await wp?.close();
    wp = undefined;
  });

  it('keeps only hashes: no table holds a new or rotated token in clear; each is shown only when made', async () => {
    wp = await testWaypost({ dialect, env: NO_HOST_TOKEN_ENV });
    const admin = await ensureAdminToken(wp.core);
    const host = await ensureHostToken(wp.core);
    expect(admin).toMatch(/^wpa_[\w-]{32}$/);
    expect(host).toMatchObject({ source: 'created', token: expect.stringMatching(/^wph_[\w-]{32}$/) });
    expect(await ensureAdminToken(wp.core)).toBeNull(); // it exists and cannot be read back
    expect(await ensureHostToken(wp.core)).toEqual({ source: 'stored', token: null });
    const rotated = await rotateAdminToken(wp.core);

    const stored = await settings(wp.core.db);
    expect(stored).not.toHaveProperty('admin_token');
    expect(stored).not.toHaveProperty('host_token');
    expect(stored[ADMIN_TOKEN_SETTING]).toMatch(/^[0-9a-f]{64}$/);
    expect(stored[HOST_TOKEN_SETTING]).toMatch(/^[0-9a-f]{64}$/);
    const all = await everyValue(wp.core.db);
    for (const token of [admin!, host.token!, rotated]) {
      expect(Object.values(stored).join('\n')).not.toContain(token.slice(4));
      expect(all).not.toContain(token.slice(4));
    }
  });

  it('converts the clear tokens of an earlier release to hashes on migration, and they keep working', async () => {
    const databaseUrl = await freshDatabaseUrl(dialect);
    const store = openStore(databaseUrl);
    const clearAdmin = 'wpa_from-an-earlier-release-0123456789';
    const clearHost = 'wph_from-an-earlier-release-0123456789';
    try {
      await migrateToBeforeHashes(store.db);
      await store.db.insertInto('settings')
        .values([{ name: 'admin_token', value: clearAdmin }, { name: 'host_token', value: clearHost }]).execute();
    } finally {
      await store.close();
    }
    wp = await createWaypost({ env: NO_HOST_TOKEN_ENV, config: { databaseUrl }, logger: createLogger('silent') });
    const stored = await settings(wp.core.db);
    expect(Object.keys(stored)).not.toContain('admin_token');
    expect(Object.keys(stored)).not.toContain('host_token');
    expect(stored[ADMIN_TOKEN_SETTING]).toMatch(/^[0-9a-f]{64}$/);
    expect(stored[HOST_TOKEN_SETTING]).toMatch(/^[0-9a-f]{64}$/);
    const all = await everyValue(wp.core.db);
    expect(all).not.toContain(clearAdmin);
    expect(all).not.toContain(clearHost);
    const app = await wp.app();
    const asAdmin = await app.inject({
      url: '/admin/api/settings', headers: { authorization: `Bearer ${clearAdmin}` },
    });
    expect(asAdmin.statusCode).toBe(200);
    const asHost = await app.inject({
      method: 'DELETE', url: '/host/v1/trips/1', headers: { authorization: `Bearer ${clearHost}` },
    });
    expect(asHost.json().code).toBe('not_found'); // authenticated: there is just no such trip
  });

  it('the CLI prints each token once, and --rotate locks the old one out of a running server at once', async () => {
    const port = await freePort();
    const env = { DATABASE_URL: await freshDatabaseUrl(dialect), PORT: String(port), LOG_LEVEL: 'silent' };
    const base = `http://127.0.0.1:${port}`;
    const started = await startServer(env);
    server = started.child;
    // The first start shows the host token it generated, whole, once.
    const hostToken = /token (wph_[\w-]{32})\n/.exec(started.banner)?.[1];
    expect(hostToken, started.banner).toBeDefined();

    const asAdmin = (token: string) =>
      fetch(`${base}/admin/api/settings`, { headers: { authorization: `Bearer ${token}` } });
    const asHost = (token: string) =>
      fetch(`${base}/host/v1/trips/1`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    expect((await asHost(hostToken!)).status).toBe(404); // authenticated: there is just no such trip

    const created = await runCli(['admin', 'token'], env);
    expect(created.code, created.stderr).toBe(0);
    const adminToken = created.stdout.trim();
    expect(adminToken).toMatch(/^wpa_[\w-]{32}$/);
    expect(created.stderr).toContain('shown only this once');
    expect((await asAdmin(adminToken)).status).toBe(200);

    // Not shown again: only its hash is stored. Exit 0, nothing on stdout, and how to get a new one.
    const again = await runCli(['admin', 'token'], env);
    expect(again).toMatchObject({ code: 0, stdout: '' });
    expect(again.stderr).toContain('cannot show it again');
    expect(again.stderr).toContain('waypost admin token --rotate');
    const againJson = await runCli(['admin', 'token', '--json'], env);
    expect(JSON.parse(againJson.stdout)).toEqual({ token: null, status: 'exists' });
    const hostAgain = await runCli(['host-token', '--json'], env);
    expect(JSON.parse(hostAgain.stdout)).toEqual({ token: null, status: 'exists' });

    const rotatedAdmin = await runCli(['admin', 'token', '--rotate', '--json'], env);
    expect(rotatedAdmin.code, rotatedAdmin.stderr).toBe(0);
    const { token: newAdmin, status } = JSON.parse(rotatedAdmin.stdout) as { token: string; status: string };
    expect(status).toBe('rotated');
    expect(newAdmin).toMatch(/^wpa_/);
    const oldAdmin = await asAdmin(adminToken);
    expect(oldAdmin.status).toBe(401);
    expect(((await oldAdmin.json()) as { code: string }).code).toBe('invalid_admin_token');
    expect((await asAdmin(newAdmin)).status).toBe(200);

    const rotatedHost = await runCli(['host-token', '--rotate'], env);
    expect(rotatedHost.code, rotatedHost.stderr).toBe(0);
    const newHost = rotatedHost.stdout.trim();
    expect(newHost).toMatch(/^wph_[\w-]{32}$/);
    const oldHost = await asHost(hostToken!);
    expect(oldHost.status).toBe(401);
    expect(((await oldHost.json()) as { code: string }).code).toBe('invalid_host_token');
    expect((await asHost(newHost)).status).toBe(404);

    const store = openStore(env.DATABASE_URL);
    try {
      const all = await everyValue(store.db);
      for (const token of [hostToken!, adminToken, newAdmin, newHost]) expect(all).not.toContain(token.slice(4));
    } finally {
      await store.close();
    }
  }, 120_000); // a server in its own process (a tsx start) and seven CLI runs

  it('with WAYPOST_HOST_TOKEN set, stores no host token and refuses to rotate one', async () => {
    const env = { DATABASE_URL: await freshDatabaseUrl(dialect), WAYPOST_HOST_TOKEN: 'from-the-environment' };
    const rotate = await runCli(['host-token', '--rotate'], env);
    expect(rotate.code).toBe(1);
    expect(rotate.stderr).toContain('WAYPOST_HOST_TOKEN is set');
    expect(JSON.parse((await runCli(['host-token', '--json'], env)).stdout))
      .toEqual({ token: 'from-the-environment', status: 'environment' });
    const store = openStore(env.DATABASE_URL);
    try {
      expect(await settings(store.db)).not.toHaveProperty(HOST_TOKEN_SETTING);
    } finally {
      await store.close();
    }
  }, 30_000);
});
