// The console's Connect WordPress status from the real plugin: a real WordPress (the WP Travel Engine 6.8.0
// fixture) with Waypost Bridge clicks Test connection, and GET /admin/api/wordpress/status shows the site connected,
// with the plugin's and WordPress's versions as its User-Agent gives them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { signIn, withAdmin } from '../admin/helpers.js';
import { BRIDGE_DIR, hasWordPress, startWordPress, type WordPress } from './wordpress.js';

const available = await hasWordPress();

describe.skipIf(!available)('Connect WordPress status from the real bridge', () => {
  let waypost: Waypost;
  let app: FastifyInstance;
  let site: WordPress;
  let address: string;

  beforeAll(async () => {
    waypost = await testWaypost();
    await withAdmin(waypost);
    app = await waypost.app();
    address = await app.listen({ port: 0, host: '127.0.0.1' });
    site = await startWordPress({ fixture: 'wpte-6.8.0', plugins: [BRIDGE_DIR] });
  }, 60_000);

  afterAll(async () => {
    await site?.close();
    await waypost?.close();
  });

  it('turns connected on the plugin\'s Test connection, with the site, its versions and its queue', async () => {
    const admin = await signIn(app);
    const status = async () => (await app.inject({ method: 'GET', url: '/admin/api/wordpress/status',
      headers: admin.headers })).json() as Record<string, unknown>;
    expect(await status()).toMatchObject({ connected: false });

    const out = JSON.parse(await site.php(`
      Waypost_Bridge_Connection::set_url( ${JSON.stringify(address)} );
      Waypost_Bridge_Connection::set_token( 'test-host-token' );
      echo wp_json_encode( array(
        'test' => Waypost_Bridge_Connection_Check::run(),
        'plugin' => WAYPOST_BRIDGE_VERSION, 'wordpress' => get_bloginfo( 'version' ), 'site' => home_url(),
        'wpte' => defined( 'WP_TRAVEL_ENGINE_VERSION' ) ? WP_TRAVEL_ENGINE_VERSION : null,
      ) );
    `)) as { test: { ok: boolean }; plugin: string; wordpress: string; site: string; wpte: string | null };
    expect(out.test.ok).toBe(true);
    expect(await status()).toMatchObject({
      connected: true, plugin_version: out.plugin, wordpress_version: out.wordpress, site_url: out.site,
      wp_travel_engine_version: out.wpte, queue_length: 0,
    });
  });
});
