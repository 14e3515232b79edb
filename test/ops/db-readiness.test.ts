// PostgreSQL unreachable for the API: a TCP proxy in front of the real PostgreSQL is cut (every connection dropped,
// new ones refused, as when the database host goes away) and restored. While it is cut /readyz answers 503 and
// host writes 503 database_unavailable (never 500), /metrics says waypost_database_up 0; afterwards all recover
// without a restart. A database that stops answering without closing anything is not ready within 2 s.
// (test/ops/db-failover.test.ts covers connections terminated under load.)
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/db.js';
import { freePort, hasPostgres } from '../helpers/services.js';
import { HOST_AUTH } from '../helpers/waypost.js';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';

const METRICS_TOKEN = 'metrics-token-0123456789';

/** A proxy to `target` on `port` that can be cut and restored, or stalled (bytes no longer forwarded). */
function cuttableProxy(port: number, target: URL) {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let stalled = false;
  const listen = () => new Promise<void>((resolve, reject) => {
    server = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => { client.destroy(); upstream.destroy(); });
      }
      // Stalled: data is taken and dropped, as by a host that vanished without closing anything.
      client.on('data', (chunk) => { if (!stalled) upstream.write(chunk); });
      upstream.on('data', (chunk) => { if (!stalled) client.write(chunk); });
    });
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const cut = () => new Promise<void>((resolve) => {
    stalled = false;
    for (const s of sockets) s.destroy();
    if (server) server.close(() => resolve());
    else resolve();
    server = null;
  });
  return { listen, cut, stall: () => { stalled = true; } };
}

const hasPg = await hasPostgres();

describe.runIf(hasPg)('PostgreSQL unreachable (API process)', () => {
  let wp: Waypost | null = null;
  let proxy: ReturnType<typeof cuttableProxy> | null = null;
  afterAll(async () => {
    await proxy?.cut();
    await wp?.close();
  });

  it('is not ready and answers host writes 503 while the database is away, and recovers', { timeout: 60_000 },
    async () => {
      const direct = new URL(await freshDatabaseUrl('postgres'));
      const port = await freePort();
      proxy = cuttableProxy(port, direct);
      await proxy.listen();
      const viaProxy = new URL(direct);
      viaProxy.port = String(port);
      wp = await createWaypost({
        env: { WAYPOST_HOST_TOKEN: 'test-host-token', WAYPOST_METRICS_TOKEN: METRICS_TOKEN },
        config: { databaseUrl: viaProxy.toString() },
        logger: createLogger('silent'),
      });
      const app = await wp.app();
      let nextId = 1;
      const write = () => app.inject({
        method: 'PUT', url: `/host/v1/trips/${nextId++}`, headers: { ...HOST_AUTH, 'content-type': 'application/json' },
        payload: JSON.stringify({ title: 'Douro Valley Wine Trail' }),
      });
      const databaseUp = async () => /^waypost_database_up (\d)/m.exec((await app.inject({ url: '/metrics',
        headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body)?.[1];

      expect((await app.inject('/readyz')).json()).toEqual({ status: 'ready', database: 'postgres' });
      expect((await write()).statusCode).toBe(201);
      expect(await databaseUp()).toBe('1');

      await proxy.cut();
      const readyz = await app.inject('/readyz');
      expect(readyz.statusCode).toBe(503);
      expect(readyz.json()).toMatchObject({
        code: 'not_ready', detail: expect.stringContaining('database unreachable'),
      });
      for (let i = 0; i < 3; i++) {
        const res = await write();
        expect(res.statusCode).toBe(503);
        expect(res.json()).toMatchObject({ code: 'database_unavailable' });
        expect(res.headers['retry-after']).toBe('1');
      }
      expect(await databaseUp()).toBe('0');
      expect((await app.inject('/healthz')).statusCode).toBe(200); // the process itself is fine

      await proxy.listen();
      expect((await app.inject('/readyz')).statusCode).toBe(200);
      expect((await write()).statusCode).toBe(201);
      expect(await databaseUp()).toBe('1');

      // A database that stops answering on open connections: /readyz says so within its 2 s bound instead of hanging.
      proxy.stall();
      const late = new Promise<null>((r) => setTimeout(r, 8_000, null));
      const stalled = await Promise.race([app.inject('/readyz'), late]);
      expect(stalled?.statusCode).toBe(503);
      expect(stalled?.json().detail).toContain('no answer within 2000 ms');
    });
});
