// What the bridge leaves in WordPress, against a real WordPress (fresh install) with a copy of the plugin (so that
// WordPress may delete and a test may break it without touching the repository): deactivating it leaves no WP-Cron
// event of ours, uninstalling it (uninstall_plugin(), as Plugins > Delete does) leaves no table, option, transient or
// event, and a copy with a class file missing says so on every admin page instead of quietly sending nothing.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE_DIR, hasWordPress, startWordPress, type WordPress } from './wordpress.js';
import { adminHttp, decodeEntities } from './wp-admin-http.js';

const PLUGIN = 'waypost-bridge/waypost-bridge.php';
const available = await hasWordPress();

describe.skipIf(!available)('bridge: deactivation and uninstall leave nothing behind', () => {
  let copy: string;
  let site: WordPress;

  beforeAll(async () => {
    copy = path.join(await mkdtemp(path.join(tmpdir(), 'waypost-bridge-copy-')), 'waypost-bridge');
    await cp(BRIDGE_DIR, copy, { recursive: true });
    // Loading WordPress runs WP-Cron: with an event due (a fresh install's own, or ours), it spawns wp-cron.php on the
    // site's server, which later saves the whole schedule it read at its start, maybe after a deactivation cleared
    // it (two CI runs saw the retry events come back). Nothing here runs events; the tests read the schedule.
    site = await startWordPress({ plugins: [copy], constants: { DISABLE_WP_CRON: true } });
  }, 120_000);

  afterAll(async () => {
    await site?.close();
    if (copy) await rm(path.dirname(copy), { recursive: true, force: true });
  });

  /** Names of our WP-Cron events still scheduled. */
  const ourEvents = async () => JSON.parse(await site.php(`
    $hooks = array();
    foreach ( (array) _get_cron_array() as $events ) { $hooks = array_merge( $hooks, array_keys( (array) $events ) ); }
    echo wp_json_encode( array_values( array_unique( preg_grep( '/^waypost/', $hooks ) ) ) );
  `)) as string[];
  const ourOptions = async () =>
    (await site.sql("SELECT option_name FROM wp_options WHERE option_name LIKE '%waypost%' ORDER BY 1")).split('\n')
      .filter(Boolean);
  const ourTables = async () => (await site.sql("SHOW TABLES LIKE '%waypost%'")).split('\n').filter(Boolean);

  it('deactivating it unschedules every event (and stops a running backfill), keeping the data', async () => {
    // Everything the plugin makes while in use: connection, queue rows and their retry, a running backfill (its
    // event has arguments), the cool-down, the backfill lock and a page notice.
    await site.php(`
      Waypost_Bridge_Connection::set_url( 'http://127.0.0.1:9' );
      Waypost_Bridge_Connection::set_token( 'a-host-token-1234' );
      Waypost_Bridge_Queue::push( 'trips', 19, 'put', 'no answer', 'failed' );
      Waypost_Bridge_Backfill::start();
      Waypost_Bridge_Forwarder::mark_unreachable();
      add_option( Waypost_Bridge_Sending_Lock::OPTION, (string) time(), '', 'no' );
      set_transient( 'waypost_bridge_notice_1', array( 'type' => 'info', 'message' => 'hi' ), 300 );
    `);
    expect((await ourEvents()).sort()).toEqual(
      ['waypost_bridge_backfill_continue', 'waypost_bridge_retry_queue', 'waypost_bridge_retry_queue_hourly']);
    expect(await ourTables()).toEqual(['wp_waypost_queue']);
    expect(await ourOptions()).toEqual(expect.arrayContaining(['waypost_bridge_token', 'waypost_bridge_backfill',
      'waypost_bridge_unreachable_until', '_transient_waypost_bridge_notice_1']));

    await site.php(`require_once ABSPATH . 'wp-admin/includes/plugin.php'; deactivate_plugins( '${PLUGIN}' );`);
    expect(await ourEvents()).toEqual([]);
    expect(await ourTables()).toEqual(['wp_waypost_queue']); // Kept for a reactivation.
    const backfill = JSON.parse(await site.php("echo wp_json_encode( get_option( 'waypost_bridge_backfill' ) );"));
    expect(backfill.running).toBe(false);
  });

  it('reactivating it schedules the retry of the rows still queued', async () => {
    await site.php(`require_once ABSPATH . 'wp-admin/includes/plugin.php'; activate_plugin( '${PLUGIN}' );`);
    expect((await ourEvents()).sort()).toEqual(['waypost_bridge_retry_queue', 'waypost_bridge_retry_queue_hourly']);
    await site.php(`require_once ABSPATH . 'wp-admin/includes/plugin.php'; deactivate_plugins( '${PLUGIN}' );`);
  });

  it('uninstalling it (Plugins > Delete) drops its table and removes every option, transient and event', async () => {
    await site.php(`
      // A deactivated plugin's event scheduled by someone else still goes.
      wp_schedule_single_event( time() + 60, 'waypost_bridge_retry_queue' );
      require_once ABSPATH . 'wp-admin/includes/plugin.php';
      uninstall_plugin( '${PLUGIN}' );
    `);
    expect(await ourTables()).toEqual([]);
    expect(await ourOptions()).toEqual([]);
    expect(await ourEvents()).toEqual([]);
  });

  it('a missing class file is an error notice on admin pages, and nothing is half-run', async () => {
    await rm(path.join(copy, 'includes/class-mapper.php'));
    await site.php(`require_once ABSPATH . 'wp-admin/includes/plugin.php';
      $r = activate_plugin( '${PLUGIN}' );
      if ( is_wp_error( $r ) ) { fwrite( STDERR, $r->get_error_message() ); exit( 1 ); }`);
    const admin = await adminHttp(site);
    for (const page of ['index.php', 'plugins.php']) {
      const { status, html } = await admin.get(page);
      expect(status).toBe(200);
      const notice = /<div class="notice notice-error" id="waypost-bridge-incomplete"><p>([^<]*)<\/p>/.exec(html);
      expect(decodeEntities(notice?.[1] ?? '')).toBe('Waypost Bridge is incomplete and sends nothing to Waypost: '
        + 'includes/class-mapper.php is missing. Install the plugin again (delete it and upload the whole folder); '
        + 'the retry queue and settings are kept.');
    }
    // None of it runs: not even the settings page, which would show a connection that sends nothing.
    expect((await admin.get('options-general.php?page=waypost-bridge')).status).not.toBe(200);
  });
});
