import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { demoCatalogue } from '../../src/demo/catalogue.js';
import { isLegacyEngine } from '../../src/records/normalize.js';
import { runCli, tempSqliteUrl } from './run.js';
import { freePort } from '../helpers/services.js';
import { startCommand } from '../../src/cli/commands/demo.js';

const sh = promisify(execFile);

describe('waypost demo', () => {
  // The demo's own database (a user's `DATABASE_URL=… npm start` serves it) and the site's, DATABASE_URL.
  const DEMO_URL = tempSqliteUrl();
  const DATABASE_URL = tempSqliteUrl();
  let server: Waypost;
  let baseUrl: string;

  beforeAll(async () => {
    server = await createWaypost({ env: { DATABASE_URL: DEMO_URL }, config: { port: 0, host: '127.0.0.1' },
      logger: createLogger('silent') });
    const { url } = await server.serve('api');
    baseUrl = url!;
  });
  afterAll(async () => server?.close());

  const demo = (args: string[] = []) =>
    runCli(['demo', '--database', DEMO_URL, ...args], { DATABASE_URL, WAYPOST_BASE_URL: baseUrl });

  it('seeds the catalogue in a database of its own, creates a key and prints a curl line that works', async () => {
    const run = await demo();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Seeded the demo catalogue into ${DEMO_URL}, a database of its own`);
    expect(existsSync(DATABASE_URL.slice('sqlite:'.length))).toBe(false); // the site's database is not touched
    expect(run.stdout).toMatch(/bookings\s+200 new, 0 changed, 0 unchanged/);
    expect(run.stdout).toContain('8 bookings predate engine 6.7.0');
    expect(run.stdout).not.toContain('npm start'); // the server is running, so no hint
    const curl = run.stdout.split('\n').map((l) => l.trim()).find((l) => l.startsWith('curl '));
    expect(curl).toMatch(new RegExp(`^curl -s -H 'Access-Token: wpk_\\w+' -H 'Access-Secret: wps_[\\w-]+' `
      + `'${baseUrl}/rest/waypost/api/v1/bookings\\?perpage=5'$`));

    // The ready-to-paste line, run by a shell exactly as printed (with -i to see the status and headers).
    const { stdout } = await sh('sh', ['-c', curl!.replace(/^curl -s /, 'curl -s -i ')]);
    const [head, body] = stdout.split(/\r\n\r\n/);
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    const bookings = JSON.parse(body) as Array<{ id: number; engine_version: string }>;
    expect(bookings).toHaveLength(5);
    expect(bookings.every((b) => !isLegacyEngine(b.engine_version))).toBe(true);
    const legacyIds = demoCatalogue().bookings.filter((b) => isLegacyEngine(b.data.engine_version)).map((b) => b.id);
    expect(head).toMatch(new RegExp(`x-total-count: ${200 - legacyIds.length}`, 'i'));

    // And the Postman line: its URL serves the collection.
    const postman = /^Or in Postman: import (\S+) and set its accessToken and accessSecret variables\.$/m.exec(
      run.stdout);
    expect(postman?.[1]).toBe(`${baseUrl}/rest/waypost/api/v1/postman.json`);
    const collection = await (await fetch(postman![1])).json();
    expect(collection.variable.map((v: { key: string }) => v.key)).toEqual(['baseUrl', 'accessToken', 'accessSecret']);
  }, 60_000);

  it('hides legacy bookings from the API and marks cart 3.0 ones incomplete', async () => {
    const run = await demo(['--json']);
    const out = JSON.parse(run.stdout);
    const headers = { 'access-token': out.key.key, 'access-secret': out.key.secret };
    const catalogue = demoCatalogue().bookings;
    const legacy = catalogue.find((b) => isLegacyEngine(b.data.engine_version))!;
    const oldCart = catalogue.find((b) => b.data.cart_version === '3.0' && !isLegacyEngine(b.data.engine_version))!;
    const root = `${baseUrl}/rest/waypost/api/v1`;
    expect((await fetch(`${root}/bookings/${legacy.id}`, { headers })).status).toBe(404);
    const incomplete = await (await fetch(`${root}/bookings/${oldCart.id}`, { headers })).json();
    expect(incomplete).toMatchObject({ id: oldCart.id, data_complete: false });
    expect(incomplete.trips[0].line_items).toEqual([]);
  }, 60_000);

  it('is idempotent and prints machine-readable output with --json', async () => {
    const run = await demo(['--json']);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.database).toBe(DEMO_URL);
    expect(out.seeded.bookings).toEqual({ created: 0, changed: 0, unchanged: 200 });
    expect(out.seeded.payments.created + out.seeded.payments.changed).toBe(0);
    expect(out).toMatchObject({ legacy_bookings: 8, server_running: true,
      key: { permissions: expect.arrayContaining(['bookings.list', 'bookings.read', 'trips.list', 'customers.read',
      'payments.list']) } });
    expect(out.key.secret).toMatch(/^wps_/);
    expect(out.curl).toContain(out.key.secret);
  }, 60_000);

  it('prints how to start a server on the demo\'s database with its PORT, and that line serves the curl', async () => {
    const db = tempSqliteUrl();
    const port = await freePort();
    const run = await runCli(['demo', '--database', db], { DATABASE_URL: tempSqliteUrl(), PORT: String(port) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Nothing answers at http://127.0.0.1:${port} yet: start the server on the demo's `
      + 'database first');
    const lines = run.stdout.split('\n').map((l) => l.trim());
    const start = lines.find((l) => l.endsWith('npm start'));
    expect(start).toBe(`DATABASE_URL=${db} PORT=${port} npm start`);
    const curl = lines.find((l) => l.startsWith('curl '))!;
    expect(curl).toContain(`'http://127.0.0.1:${port}/rest/waypost/api/v1/bookings?perpage=5'`);

    // What the server started by that line sees, as a shell reads it (nothing else in its environment)…
    const printEnv = `${process.execPath} -p "JSON.stringify(process.env)"`;
    const printed = await sh('sh', ['-c', start!.replace(/npm start$/, printEnv)], { env: {} });
    const seen = JSON.parse(printed.stdout) as Record<string, string>;
    const { PWD: _pwd, SHLVL: _shlvl, _: _last, ...given } = seen;
    expect(given).toEqual({ DATABASE_URL: db, PORT: String(port) });
    // …runs a server that answers the curl line with the seeded bookings.
    const started = await createWaypost({ env: given, logger: createLogger('silent') });
    try {
      await started.serve('api');
      const { stdout } = await sh('sh', ['-c', curl.replace(/^curl -s /, 'curl -s -o /dev/null -w %{http_code} ')]);
      expect(stdout).toBe('200');
    } finally {
      await started.close();
    }
  }, 60_000);

  it('quotes a DATABASE_URL the shell would split', () => {
    expect(startCommand({ DATABASE_URL: 'postgres://u:p@db/waypost?sslmode=require&x=1', PORT: '9090', HOME: '/h' }))
      .toBe(`DATABASE_URL='postgres://u:p@db/waypost?sslmode=require&x=1' PORT=9090 npm start`);
    expect(startCommand({})).toBe('npm start');
  });
});
