// The bridge's Test connection refuses to call a Waypost holding the demo catalogue ready (issue 29 item 10): that
// Waypost refuses records with the demo's ids (a site's customer 29, comment 3), so connecting a site to it would lose
// those. Against a real WordPress (fresh install, the bridge active) and a real Waypost on this machine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { seedDemo } from '../../src/demo/seed.js';
import { removeDemo } from '../../src/demo/remove.js';
import { BRIDGE_DIR, hasWordPress, startWordPress, type WordPress } from './wordpress.js';
import { adminHttp, type AdminHttp } from './wp-admin-http.js';

const available = await hasWordPress();

describe.skipIf(!available)('bridge: Test connection with the demo in Waypost', () => {
  let waypost: Waypost;
  let site: WordPress;
  let admin: AdminHttp;

  beforeAll(async () => {
    waypost = await testWaypost();
    const url = await (await waypost.app()).listen({ port: 0, host: '127.0.0.1' });
    site = await startWordPress({ plugins: [BRIDGE_DIR] });
    admin = await adminHttp(site);
    await admin.action('waypost_bridge_save_connection', { waypost_url: url, waypost_token: 'test-host-token' });
  }, 120_000);

  afterAll(async () => {
    await site?.close();
    await waypost?.close();
  });

  it('says the demo is there and how to remove it, and connects once it is gone', async () => {
    expect(await admin.action('waypost_bridge_test_connection')).toMatch(/^Connected to Waypost/);
    const seeded = await seedDemo(waypost.core, { bookings: 20 });
    const records = Object.values(seeded).reduce((s, r) => s + r.created, 0);

    const message = await admin.action('waypost_bridge_test_connection');
    expect(message).toContain(`it holds the demo catalogue (${records} records from \`waypost demo\`)`);
    expect(message).toContain('npx waypost demo --remove');
    const cli = JSON.parse(await site.php('echo wp_json_encode( Waypost_Bridge_Connection_Check::run() );'));
    expect(cli).toMatchObject({ ok: false, status: 200 });

    await removeDemo(waypost.core);
    expect(await admin.action('waypost_bridge_test_connection')).toMatch(/^Connected to Waypost/);
  }, 60_000);
});
