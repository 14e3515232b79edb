// The process's LISTEN connection (src/store/notifications.ts) on real PostgreSQL: every channel on one connection,
// each NOTIFY to its own subscribers, the loss of the connection told to all of them and LISTEN taken up again,
// and the connection closed when the last subscriber leaves.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase } from '../helpers/db.js';
import { hasPostgres } from '../helpers/services.js';
import { until } from '../helpers/processes.js';
import { createLogger } from '../../src/log.js';
import { Notifications, type ChannelListener } from '../../src/store/notifications.js';

const available = await hasPostgres();

describe.runIf(available)('one LISTEN connection per process', () => {
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>> | null = null;
  let admin: pg.Client | null = null;
  const app = `wpnotify_${randomBytes(4).toString('hex')}`;
  let url = '';

  beforeAll(async () => {
    database = await freshPostgresDatabase();
    const u = new URL(database.url);
    u.searchParams.set('application_name', app);
    url = u.toString();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end().catch(() => {});
    await database?.drop().catch(() => {});
  });

  const connections = async () => (await admin!.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE application_name = $1', [app])).rows.map((r) => r.pid);

  function recorder() {
    const seen: string[] = [];
    const listener: ChannelListener = {
      notified: (payload) => seen.push(`notified:${payload}`),
      listening: () => seen.push('listening'),
      lost: () => seen.push('lost'),
    };
    return { seen, listener };
  }

  it('serves every channel on one connection, tells each loss and return, and closes after the last', async () => {
    const notifications = new Notifications(url, createLogger('silent'), { retryMs: 50 });
    const [a, b] = [recorder(), recorder()];
    const stopA = notifications.subscribe('test_channel_a', a.listener);
    const stopB = notifications.subscribe('test_channel_b', b.listener);
    await until('both to listen', async () => a.seen.includes('listening') && b.seen.includes('listening'));
    expect(await connections()).toHaveLength(1);

    await admin!.query(`SELECT pg_notify('test_channel_a', 'one'), pg_notify('test_channel_b', 'two')`);
    await until('both notifications', async () => a.seen.includes('notified:one') && b.seen.includes('notified:two'));
    expect(a.seen).not.toContain('notified:two');

    const [pid] = await connections();
    await admin!.query('SELECT pg_terminate_backend($1)', [pid]);
    await until('the loss and the return', async () => [a, b].every((r) => r.seen.join() === 'listening,'
      + `notified:${r === a ? 'one' : 'two'},lost,listening`));
    const now = await connections();
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(pid);
    await admin!.query(`SELECT pg_notify('test_channel_a', 'three')`);
    await until('a notification after the return', async () => a.seen.includes('notified:three'));

    await stopA();
    await stopB();
    await until('the connection to close', async () => (await connections()).length === 0);
  }, 30_000);
});
