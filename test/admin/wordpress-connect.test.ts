// The Connect WordPress page's admin API: the plugin's zip, a new host token shown once (the old one stops working),
// and the site's status as the bridge's requests report it (User-Agent, optional headers), recorded without a
// database write per host request.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import type { Clock } from '../../src/core.js';
import { ensureHostToken } from '../../src/host/token.js';
import { wordpressPlugin } from '../../src/admin/wordpress-routes.js';
import { CONTACT_SETTING } from '../../src/admin/wordpress-contact.js';
import { signIn, withAdmin, type SignedIn } from './helpers.js';

const BRIDGE_AGENT = 'WaypostBridge/0.1.0; WordPress/6.1.1';
const NO_HOST_TOKEN_ENV = { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' };
// The User-Agent and headers the plugin really sends are checked end to end, from a real WordPress, by
// test/bridge/connect-status.test.ts.

describe.each(DIALECTS)('Connect WordPress admin API (%s)', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let admin: SignedIn;
  let now: number;
  const clock: Clock = { now: () => now };
  const realZip = wordpressPlugin.zipPath;

  const open = async (env?: Record<string, string>) => {
    wp = await testWaypost({ dialect, clock, env });
    await withAdmin(wp);
    app = await wp.app();
    admin = await signIn(app);
  };
  beforeEach(() => { now = Date.parse('2026-03-01T10:00:00Z'); });
  afterEach(async () => {
    wordpressPlugin.zipPath = realZip;
    await wp?.close();
  });

  const status = async () => {
    const res = await app.inject({ method: 'GET', url: '/admin/api/wordpress/status', headers: admin.headers });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Record<string, unknown>;
  };
  const hostBatch = (headers: Record<string, string>) => app.inject({
    method: 'POST', url: '/host/v1/batch', headers, payload: { operations: [] } });
  const storedContact = async () => (await wp.core.db.selectFrom('settings').select('value')
    .where('name', '=', CONTACT_SETTING).executeTakeFirst())?.value ?? null;
  /** The contact is written after the answer, in the background. */
  const storedSoon = async (expected: (value: string | null) => boolean) => {
    for (let i = 0; i < 100 && !expected(await storedContact()); i++) await new Promise((r) => setTimeout(r, 20));
    return storedContact();
  };

  it('refuses every route without a session', async () => {
    await open();
    for (const [method, url] of [['GET', 'plugin.zip'], ['POST', 'host-token'], ['GET', 'status']] as const) {
      const res = await app.inject({ method, url: `/admin/api/wordpress/${url}` });
      expect(res.statusCode, url).toBe(401);
    }
  });

  it('serves the built plugin as a download, and says how to build it when it is missing', async () => {
    await open();
    const dir = mkdtempSync(join(tmpdir(), 'waypost-plugin-'));
    wordpressPlugin.zipPath = join(dir, 'waypost-bridge.zip');
    const missing = await app.inject({ method: 'GET', url: '/admin/api/wordpress/plugin.zip', headers: admin.headers });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'plugin_not_built' });
    expect(missing.json().detail).toContain('npm run build');
    expect(await status()).toMatchObject({ plugin: null });

    const bytes = Buffer.from('PK\u0005\u0006' + '\0'.repeat(18), 'latin1');
    writeFileSync(wordpressPlugin.zipPath, bytes);
    const res = await app.inject({ method: 'GET', url: '/admin/api/wordpress/plugin.zip', headers: admin.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toBe('attachment; filename="waypost-bridge.zip"');
    expect(res.rawPayload.equals(bytes)).toBe(true);
    const head = await app.inject({ method: 'HEAD', url: '/admin/api/wordpress/plugin.zip', headers: admin.headers });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(bytes.length));
    expect(head.rawPayload.length).toBe(0);
    expect(await status()).toMatchObject({ plugin: { file: 'waypost-bridge.zip', bytes: bytes.length,
      version: wp.config.version } });
  });

  it('makes a new host token once: it works on the Host API, the old one stops, only its hash is kept', async () => {
    await open(NO_HOST_TOKEN_ENV);
    const first = await ensureHostToken(wp.core);
    const old = first.token!;
    expect(await status()).toMatchObject({ host_token_source: 'stored' });

    const noCsrf = await app.inject({ method: 'POST', url: '/admin/api/wordpress/host-token',
      headers: { cookie: admin.cookie } });
    expect(noCsrf.statusCode).toBe(403);

    const res = await app.inject({ method: 'POST', url: '/admin/api/wordpress/host-token', headers: admin.headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const { token } = res.json() as { token: string };
    expect(token).toMatch(/^wph_[A-Za-z0-9_-]{32}$/);
    expect((await hostBatch({ authorization: `Bearer ${token}` })).statusCode).toBe(200);
    expect((await hostBatch({ authorization: `Bearer ${old}` })).statusCode).toBe(401);
    const settings = JSON.stringify(await wp.core.db.selectFrom('settings').selectAll().execute());
    expect(settings).not.toContain(token);
  });

  it('says why it cannot make a token while WAYPOST_HOST_TOKEN decides', async () => {
    await open();
    const res = await app.inject({ method: 'POST', url: '/admin/api/wordpress/host-token', headers: admin.headers });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toContain('WAYPOST_HOST_TOKEN');
    expect(await status()).toMatchObject({ host_token_source: 'environment' });
  });

  it('shows the site once the bridge calls, with what it reports about itself', async () => {
    await open();
    expect(await status()).toMatchObject({ connected: false, last_contact_at: null, plugin_version: null });

    // Neither a wrong token nor another client is the site's contact.
    expect((await hostBatch({ authorization: 'Bearer nope', 'user-agent': BRIDGE_AGENT })).statusCode).toBe(401);
    expect((await hostBatch({ ...HOST_AUTH, 'user-agent': 'curl/8.0' })).statusCode).toBe(200);
    expect(await status()).toMatchObject({ connected: false });

    expect((await hostBatch({ ...HOST_AUTH, 'user-agent': BRIDGE_AGENT })).statusCode).toBe(200);
    const seen = await status();
    delete seen.plugin; // whether dist/ has the zip: the test above
    expect(seen).toEqual({
      connected: true, last_contact_at: '2026-03-01T10:00:00.000Z', site_url: null, plugin_version: '0.1.0',
      wordpress_version: '6.1.1', wp_travel_engine_version: null, queue_length: null, host_token_source: 'environment',
      waypost_url: wp.config.baseUrl,
    });

    now += 5_000;
    await hostBatch({ ...HOST_AUTH, 'user-agent': `${BRIDGE_AGENT}; WPTravelEngine/6.8.0`,
      'x-waypost-site-url': 'https://Shop.Example.com/', 'x-waypost-queue-length': '3' });
    expect(await status()).toMatchObject({ last_contact_at: '2026-03-01T10:00:05.000Z',
      site_url: 'https://shop.example.com', wp_travel_engine_version: '6.8.0', queue_length: 3 });

    // Sign-in links carry the site's address in their body.
    const other = 'https://tours.example.org';
    const link = await app.inject({ method: 'POST', url: '/host/v1/sign-in-links',
      headers: { ...HOST_AUTH, 'user-agent': BRIDGE_AGENT },
      payload: { email: 'maria@example.com', wp_user_id: 7, site_url: other } });
    expect(link.statusCode, link.body).toBe(201);
    expect(await status()).toMatchObject({ site_url: other });
  });

  it('writes the contact to the database at most once a minute, unless what the site reports changes', async () => {
    await open();
    await hostBatch({ ...HOST_AUTH, 'user-agent': BRIDGE_AGENT });
    const first = await storedSoon((v) => v !== null);
    expect(JSON.parse(first!)).toMatchObject({ last_contact_at: '2026-03-01T10:00:00.000Z' });

    now += 30_000;
    await hostBatch({ ...HOST_AUTH, 'user-agent': BRIDGE_AGENT });
    await new Promise((r) => setTimeout(r, 200));
    expect(await storedContact()).toBe(first); // no write: this process's status has it from memory
    expect(await status()).toMatchObject({ last_contact_at: '2026-03-01T10:00:30.000Z' });

    now += 31_000;
    await hostBatch({ ...HOST_AUTH, 'user-agent': BRIDGE_AGENT });
    const later = await storedSoon((v) => v !== first);
    expect(JSON.parse(later!)).toMatchObject({ last_contact_at: '2026-03-01T10:01:01.000Z' });

    // An update of the plugin shows at once in every process.
    now += 1_000;
    await hostBatch({ ...HOST_AUTH, 'user-agent': 'WaypostBridge/0.2.0; WordPress/6.1.1' });
    const updated = await storedSoon((v) => v !== later);
    expect(JSON.parse(updated!)).toMatchObject({ plugin_version: '0.2.0' });
  });
});
