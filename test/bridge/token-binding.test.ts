// The bridge gives the host token only to the server it was saved for, against a real WordPress (fresh install, the
// bridge active) and a real Waypost on this machine, with a local HTTP server playing another host that someone with
// wp-admin access points the plugin at: it must never see an Authorization header, and what it answers must never be
// shown in WordPress (Test connection, the retry queue's last error, Open Webhooks & API).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { BRIDGE_DIR, hasWordPress, rewritePhp, startWordPress, type WordPress } from './wordpress.js';
import { adminHttp, type AdminHttp } from './wp-admin-http.js';

const TOKEN = 'test-host-token';
/** Words only the other host says: none of them may appear in WordPress. */
const LEAK = 'INTERNAL-ONLY-7f3a';

const available = await hasWordPress();

describe.skipIf(!available)('bridge: the host token goes only to the server it was saved for', () => {
  let waypost: Waypost;
  let waypostUrl: string;
  let site: WordPress;
  let admin: AdminHttp;
  let other: ReturnType<typeof createServer>;
  let otherUrl: string;
  const seen: { method: string; url: string; authorization?: string }[] = [];
  /** How the other host answers /healthz: like Waypost (so the token check is reached), or with a page. */
  let healthz: 'waypost' | 'page' = 'waypost';

  beforeAll(async () => {
    waypost = await testWaypost();
    waypostUrl = await (await waypost.app()).listen({ port: 0, host: '127.0.0.1' });
    other = createServer((req: IncomingMessage, res) => {
      seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization });
      req.resume();
      if (req.url === '/healthz' && healthz === 'waypost') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'ok', version: `<b>${LEAK}</b>` }));
        return;
      }
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end(`<h1>${LEAK}</h1><p>db password: ${LEAK}</p>`);
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    site = await startWordPress({ plugins: [BRIDGE_DIR] });
    admin = await adminHttp(site);
  }, 120_000);

  afterAll(async () => {
    other?.close();
    await site?.close();
    await waypost?.close();
  });

  const storedToken = () => site.sql("SELECT option_value FROM wp_options WHERE option_name = 'waypost_bridge_token'");
  const withToken = () => seen.filter((r) => r.authorization !== undefined);

  it('connects to Waypost on the same machine with a URL and token saved together', async () => {
    expect(await admin.action('waypost_bridge_save_connection', { waypost_url: waypostUrl, waypost_token: TOKEN }))
      .toBe('Waypost URL saved. Host token saved (encrypted).');
    expect(await admin.action('waypost_bridge_test_connection')).toMatch(/^Connected to Waypost/);
  });

  it('a URL on another server removes the saved token, says so, and nothing carrying it reaches that server',
    async () => {
    const notice = await admin.action('waypost_bridge_save_connection', { waypost_url: otherUrl, waypost_token: '' });
    expect(notice).toContain('The saved host token was removed');
    expect(await storedToken()).toBe('');
    const page = await admin.settings();
    expect(page).toMatch(/name="waypost-test"[^>]*disabled/); // Test connection: not configured any more.

    // Every way the plugin talks to Waypost: the page's buttons, a direct write, the retry queue.
    expect(await admin.action('waypost_bridge_test_connection')).toMatch(/not connected: set the host token/);
    expect(await admin.action('waypost_bridge_open_console')).toMatch(/not connected/);
    const direct = JSON.parse(await site.php(`
      Waypost_Bridge_Queue::push( 'trips', 7, 'put', null, 'deferred' );
      echo wp_json_encode( array( 'put' => Waypost_Bridge_Client::put( 'trips', 7, array( 'title' => 'x' ) ),
        'run' => Waypost_Bridge_Queue_Runner::run() ) );
    `));
    expect(direct.put).toMatchObject({ status: 0 });
    expect(withToken()).toEqual([]);

    // Back to Waypost: the token does not come back with the old address; typed again, it works.
    expect(await admin.action('waypost_bridge_save_connection', { waypost_url: waypostUrl, waypost_token: '' }))
      .toBe('Waypost URL saved.');
    expect(await admin.action('waypost_bridge_test_connection')).toMatch(/not connected: set the host token/);
    await admin.action('waypost_bridge_save_connection', { waypost_url: waypostUrl, waypost_token: TOKEN });
    expect(await admin.action('waypost_bridge_test_connection')).toMatch(/^Connected to Waypost/);
    expect(withToken()).toEqual([]);
  });

  it('a token saved for one address is not sent to another one written straight into the options', async () => {
    await site.sql(`UPDATE wp_options SET option_value = '${otherUrl}' WHERE option_name = 'waypost_bridge_url'`);
    const out = JSON.parse(await site.php(`
      echo wp_json_encode( array( 'put' => Waypost_Bridge_Client::put( 'trips', 7, array( 'title' => 'x' ) ),
        'problem' => Waypost_Bridge_Connection::token_problem() ) );
    `));
    expect(out.put.status).toBe(0);
    expect(out.problem).toMatch(/given for http:\/\/127\.0\.0\.1:\d+, not for the current Waypost URL/);
    expect(withToken()).toEqual([]);
    await site.sql(`UPDATE wp_options SET option_value = '${waypostUrl}' WHERE option_name = 'waypost_bridge_url'`);
  });

  it('WAYPOST_HOST_TOKEN is used only with WAYPOST_URL; with a URL typed on the page the page explains', async () => {
    await admin.action('waypost_bridge_save_connection', { waypost_url: otherUrl, waypost_token: '' });
    const config = path.join(site.dir, 'wp-config.php');
    const original = await readFile(config, 'utf8');
    const withConstants = (lines: string) =>
      original.replace("$table_prefix = 'wp_';", `${lines}\n$table_prefix = 'wp_';`);
    try {
      await rewritePhp(config, withConstants(`define( 'WAYPOST_HOST_TOKEN', '${TOKEN}' );`));
      expect(await admin.settings())
        .toContain('WAYPOST_HOST_TOKEN is defined in wp-config.php, but WAYPOST_URL is not');
      expect(await admin.action('waypost_bridge_test_connection')).toContain('define WAYPOST_URL beside it');
      expect(withToken()).toEqual([]);

      await rewritePhp(config, withConstants(
        `define( 'WAYPOST_HOST_TOKEN', '${TOKEN}' );\ndefine( 'WAYPOST_URL', '${waypostUrl}' );`));
      expect(await admin.action('waypost_bridge_test_connection')).toMatch(/^Connected to Waypost/);
    } finally {
      await rewritePhp(config, original);
    }
    expect(withToken()).toEqual([]);
  });

  it('shows fixed messages, never what the other server answered', async () => {
    // An administrator gives that server a token on purpose: it gets it, but its answers are not repeated.
    await admin.action('waypost_bridge_save_connection', { waypost_url: otherUrl, waypost_token: 'typed-for-it-1234' });
    healthz = 'waypost';
    const tokenCheck = await admin.action('waypost_bridge_test_connection');
    expect(tokenCheck).toBe('Waypost answered the token check with HTTP 500. Its log on the server says why.');
    healthz = 'page';
    expect(await admin.action('waypost_bridge_test_connection'))
      .toBe(`${otherUrl} does not look like Waypost (GET /healthz answered 500). Check the URL.`);
    const open = await admin.action('waypost_bridge_open_console');
    expect(open).toMatch(/^Could not open Webhooks & API: HTTP 500/);
    await site.php("Waypost_Bridge_Queue::push( 'trips', 8, 'put', null, 'deferred' );"
      + ' Waypost_Bridge_Queue_Runner::run();');
    const page = await admin.settings();
    expect(page).toContain('HTTP 500: not an answer from Waypost');
    expect(page).not.toContain(LEAK);
    for (const notice of [tokenCheck, open]) expect(notice).not.toContain(LEAK);
    expect(withToken().every((r) => r.authorization === 'Bearer typed-for-it-1234')).toBe(true);
  });
});
