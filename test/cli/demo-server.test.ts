// `npm run demo` finds a running server on another port than 8080: `waypost serve` records where it listens in its
// database, and the demo reads it there, so its curl line and Postman link point at that server.
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { freePort } from '../helpers/services.js';
import { runCli, runCliJson, tempSqliteUrl } from './run.js';

const sink = () => new Writable({ write: (_chunk, _encoding, done) => done() });

describe('waypost demo and a running server', { timeout: 120_000 }, () => {
  const DEMO_URL = tempSqliteUrl();
  const signals = new EventEmitter();
  let port: number;
  let served: Promise<number>;

  beforeAll(async () => {
    // The demo's database exists (an earlier `demo` made it), and `serve` runs on it with a PORT of its own.
    await runCliJson(['demo', '--database', DEMO_URL], { DATABASE_URL: tempSqliteUrl() });
    port = await freePort();
    const env = { DATABASE_URL: DEMO_URL, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn',
      WAYPOST_HOST_TOKEN: 'demo-server-test-token' };
    served = run(['serve', '--role', 'api'], { stdout: sink(), stderr: sink(), env, signals });
    for (const started = Date.now(); ;) {
      const up = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
      if (up) break;
      if (Date.now() - started > 30_000) throw new Error('serve did not answer within 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  afterAll(async () => {
    signals.emit('SIGTERM');
    await served;
  });

  it('finds the server without being given its PORT, and prints a curl line that reaches it', async () => {
    const demo = await runCli(['demo', '--database', DEMO_URL], { DATABASE_URL: tempSqliteUrl() });
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).not.toContain('Nothing answers');
    expect(demo.stdout).not.toContain('npm start');
    const curl = demo.stdout.split('\n').map((l) => l.trim()).find((l) => l.startsWith('curl '))!;
    const url = /'(http[^']+)'$/.exec(curl)![1];
    expect(url).toBe(`http://127.0.0.1:${port}/rest/waypost/api/v1/bookings?perpage=5`);
    const [, token, secret] = /Access-Token: (\S+)' -H 'Access-Secret: (\S+)'/.exec(curl)!;
    const res = await fetch(url, { headers: { 'access-token': token, 'access-secret': secret } });
    expect(res.status).toBe(200);
    expect(demo.stdout).toContain(`Or in Postman: import http://127.0.0.1:${port}/rest/waypost/api/v1/postman.json`);
  });
});
