// API keys held in memory on PostgreSQL (issue 16): two real `serve --role api` processes on one fresh database.
// Process B holds the keys it read; a key disabled through process A's admin API, and another disabled by plain
// SQL, are refused by B soon after (migration 0016's trigger NOTIFYs; B drops what it holds). Then B's LISTEN
// connection is terminated: from the moment B notices, it reads every key per request, so a key disabled meanwhile
// without any notification is never accepted, and once LISTEN is back B holds keys again.
// "Quietly" below: a change made with session_replication_role = replica, which skips the trigger (no NOTIFY), so
// a process sees it only by reading the row; a held key survives it, which is how holding is observed.
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase } from '../helpers/db.js';
import { freePort, hasPostgres } from '../helpers/services.js';
import { killAll, startReport, startServe, until, type Child } from '../helpers/processes.js';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { createApiKey, type CreatedApiKey } from '../../src/api/keys.js';
import { rotateAdminToken } from '../../src/admin/token.js';

const available = await hasPostgres();
const TEST_PATH = '/rest/waypost/api/v1/test';

describe.runIf(available)('API key changes reach every API process on PostgreSQL', () => {
  const children: Child[] = [];
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>> | null = null;
  let wp: Waypost | null = null;
  let admin: pg.Client | null = null;
  let adminToken = '';
  const bases: string[] = [];
  const appOf = (name: string) => `wpkeys_${name}_${randomBytes(3).toString('hex')}`;
  const apps = [appOf('a'), appOf('b')];

  afterAll(async () => {
    await killAll(children);
    await admin?.end().catch(() => {});
    await wp?.close();
    await database?.drop().catch(() => {});
  });

  const call = async (base: string, key: Pick<CreatedApiKey, 'key' | 'secret'>) => {
    const headers = { 'access-token': key.key, 'access-secret': key.secret };
    const res = await fetch(`${base}${TEST_PATH}`, { headers });
    return { status: res.status, code: ((await res.json()) as { code?: string }).code };
  };
  /** The pids of a process's LISTEN connection on the key channel. */
  const listenerPids = async (app: string) => {
    const { rows } = await admin!.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity
      WHERE application_name = $1 AND query LIKE '%LISTEN waypost_api_keys%'`, [app]);
    return rows.map((r) => r.pid);
  };
  const quietly = async (statement: string, id: string) => {
    await admin!.query('BEGIN');
    await admin!.query('SET LOCAL session_replication_role = replica');
    await admin!.query(statement, [id]);
    await admin!.query('COMMIT');
  };
  const newKey = (label: string) => createApiKey(wp!.core, { label, permissions: ['bookings.list'] });
  const output = (c: Child) => c.output.join('');

  beforeAll(async () => {
    database = await freshPostgresDatabase();
    // Migrated before the processes start (they would race to migrate).
    wp = await createWaypost({ env: {}, config: { databaseUrl: database.url }, logger: createLogger('silent') });
    adminToken = await rotateAdminToken(wp.core);
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    for (const [i, name] of ['api-a', 'api-b'].entries()) {
      const url = new URL(database.url);
      url.searchParams.set('application_name', apps[i]);
      const port = await freePort();
      // No Redis (rate limits in memory): the keys are what is tested. Info: B's LISTEN loss and return are logged.
      children.push(startServe(name, 'api', { DATABASE_URL: url.toString(), PORT: String(port), REDIS_URL: undefined,
        LOG_LEVEL: 'info' }));
      bases.push(`http://127.0.0.1:${port}`);
      const ready = async () => (await fetch(`${bases[i]}/readyz`).then((r) => r.status, () => 0)) === 200;
      await until(`${name} to be ready`, ready, 90_000, () => startReport(children));
      // The first key lookup starts the process's LISTEN for key changes.
      expect((await call(bases[i], { key: 'wpk_none', secret: 'wps_none' })).code).toBe('unknown_key');
      await until(`${name} to LISTEN for key changes`, async () => (await listenerPids(apps[i])).length === 1);
    }
  }, 200_000);

  it('a key disabled through A\'s admin API, or by plain SQL, is refused by B, which held it', async () => {
    const [viaAdmin, viaSql, held] = [await newKey('via-admin'), await newKey('via-sql'), await newKey('held')];
    for (const k of [viaAdmin, viaSql, held]) expect((await call(bases[1], k)).status).toBe(200);
    await quietly('DELETE FROM api_keys WHERE id = $1', held.id);
    expect((await call(bases[1], held)).status).toBe(200); // B answers from the key it holds

    // A new key notifies nothing (it cannot be held yet), so B keeps what it holds. NOTIFYs reach a listener in
    // commit order: once the marker sent after the creation has arrived, any notification of it would have too.
    const heard: string[] = [];
    const listener = new pg.Client({ connectionString: database!.url });
    await listener.connect();
    try {
      listener.on('notification', (n) => heard.push(n.channel));
      await listener.query('LISTEN waypost_api_keys; LISTEN waypost_test_marker');
      const created = await fetch(`${bases[0]}/admin/api/keys`, {
        method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ label: 'new', permissions: ['bookings.list'] }),
      });
      expect(created.status).toBe(201);
      await admin!.query('NOTIFY waypost_test_marker');
      await until('the marker to arrive', async () => heard.includes('waypost_test_marker'));
      expect(heard).toEqual(['waypost_test_marker']);
    } finally {
      await listener.end();
    }
    expect((await call(bases[1], held)).status).toBe(200);

    const res = await fetch(`${bases[0]}/admin/api/keys/${viaAdmin.id}/disable`, {
      method: 'POST', headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(res.status).toBe(200);
    await until('B to refuse the key disabled through A', async () => (await call(bases[1], viaAdmin)).status === 401);
    expect((await call(bases[1], viaAdmin)).code).toBe('key_disabled');

    await admin!.query('UPDATE api_keys SET active = 0 WHERE id = $1', [viaSql.id]);
    await until('B to refuse the key disabled by SQL', async () => (await call(bases[1], viaSql)).status === 401);
    expect((await call(bases[1], viaSql)).code).toBe('key_disabled');
  }, 60_000);

  it('without its LISTEN connection B reads keys per request, and holds them again once LISTEN is back', async () => {
    const b = children[1];
    const [victim, held] = [await newKey('victim'), await newKey('held-2')];
    for (const k of [victim, held]) expect((await call(bases[1], k)).status).toBe(200); // held by B
    const before = await listenerPids(apps[1]);
    const lost = output(b).split('LISTEN connection lost').length;
    for (const pid of before) await admin!.query('SELECT pg_terminate_backend($1)', [pid]);
    await until('B to notice the loss', async () => output(b).split('LISTEN connection lost').length > lost);

    // No notification can tell B of these: only reading the rows per request can.
    await quietly('UPDATE api_keys SET active = 0 WHERE id = $1', victim.id);
    await quietly('DELETE FROM api_keys WHERE id = $1', held.id);
    expect(await call(bases[1], victim)).toEqual({ status: 401, code: 'key_disabled' });
    expect((await call(bases[1], held)).code).toBe('unknown_key');

    await until('B to LISTEN again', async () => {
      const now = await listenerPids(apps[1]);
      return now.length === 1 && !before.includes(now[0]) && output(b).includes('LISTEN connection restored');
    }, 30_000);
    expect((await call(bases[1], victim)).code).toBe('key_disabled');
    // Holding again: a key read now survives a quiet delete.
    const again = await newKey('again');
    expect((await call(bases[1], again)).status).toBe(200);
    await quietly('DELETE FROM api_keys WHERE id = $1', again.id);
    expect((await call(bases[1], again)).status).toBe(200);
  }, 90_000);
});
