// The plugin as a site owner gets it: the zip that `npm run build` writes, installed by WordPress' own upgrader (as
// Plugins > Add New > Upload does) into a real WordPress with the WP Travel Engine 6.8.0 fixture's data; every string
// the settings page shows goes through the `waypost-bridge` text domain and is in languages/waypost-bridge.pot; on a
// WordPress older than 5.0 the plugin loads nothing and says what it needs.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pluginArchive, pluginPot, POT_FILE, readVersions } from '../../src/build/wordpress-plugin.js';
import { hasWordPress, startWordPress, type WordPress } from './wordpress.js';
import { decodeEntities } from './wp-admin-http.js';
import { potMsgids, RENDER_STATES, untranslated } from './shipping-helpers.js';

const available = await hasWordPress();
const PLUGIN = 'waypost-bridge/waypost-bridge.php';
const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as
  { version: string };

describe('the plugin as built', () => {
  it('languages/waypost-bridge.pot is what `npm run build` extracts from the PHP as it is now', () => {
    const withoutYear = (pot: string) => pot.replace(/^# Copyright \(C\) \d+ /m, '# Copyright (C) ');
    expect(withoutYear(readFileSync(POT_FILE, 'utf8'))).toBe(withoutYear(pluginPot()));
  });

  it('carries Waypost\'s version in its header, its constant and its readme.txt', () => {
    expect(readVersions()).toEqual({ header: pkg.version, constant: pkg.version, stableTag: pkg.version });
  });
});

describe.skipIf(!available)('the plugin zip in a real WordPress', () => {
  let site: WordPress;
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'waypost-bridge-zip-'));
    site = await startWordPress({ fixture: 'wpte-6.8.0' });
  }, 120_000);

  afterAll(async () => {
    await site?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('installs from waypost-bridge.zip with WordPress\' own upgrader and activates', async () => {
    const { archive, files } = pluginArchive();
    const zipFile = path.join(work, 'waypost-bridge.zip');
    await writeFile(zipFile, archive);
    const out = JSON.parse(await site.php(`
      require_once ABSPATH . 'wp-admin/includes/admin.php';
      require_once ABSPATH . 'wp-admin/includes/class-wp-upgrader.php';
      $upgrader = new Plugin_Upgrader( new Automatic_Upgrader_Skin() );
      $installed = $upgrader->install( '${zipFile}' );
      $activated = activate_plugin( '${PLUGIN}' );
      $data = get_plugin_data( WP_PLUGIN_DIR . '/${PLUGIN}', false, false );
      echo wp_json_encode( array(
        'installed' => true === $installed,
        'errors' => $upgrader->skin->get_upgrade_messages(),
        'activated' => null === $activated,
        'version' => $data['Version'], 'name' => $data['Name'], 'domain' => $data['TextDomain'],
        'description' => $data['Description'],
        'files' => count( iterator_to_array( new RecursiveIteratorIterator( new RecursiveDirectoryIterator(
          WP_PLUGIN_DIR . '/waypost-bridge', FilesystemIterator::SKIP_DOTS ) ) ) ),
      ) );
    `)) as Record<string, unknown>;
    expect(out).toMatchObject({ installed: true, activated: true, version: pkg.version, name: 'Waypost Bridge',
      domain: 'waypost-bridge', files });
    // The whole description (WordPress reads one line of a header).
    expect(out.description).toMatch(/reviews to Waypost \(webhooks and a read-only REST API\)/);
    expect((await site.sql("SHOW TABLES LIKE 'wp_waypost_queue'")).trim()).toBe('wp_waypost_queue');
  });

  it('shows every string of the settings page through the waypost-bridge text domain, each one in the .pot',
    async () => {
    const out = JSON.parse(await site.php(RENDER_STATES)) as
      { pages: string[]; seen: string[]; data: string[] };
    expect(out.pages).toHaveLength(4);
    const msgids = potMsgids(readFileSync(POT_FILE, 'utf8'));
    const missing = out.seen.filter((text) => !msgids.has(text));
    expect(missing).toEqual([]);
    // Rendered with every translation marked ⟦…⟧: what is left outside the marks is data, never words.
    for (const html of out.pages) expect(untranslated(decodeEntities(html), out.data)).toEqual([]);
    // The states it went through, so that their strings were seen.
    const all = out.pages.join('\n');
    for (const id of ['waypost-http-warning', 'waypost-cron-disabled', 'waypost-queue-cron-disabled']) {
      expect(all).toContain(`id="${id}"`);
    }
    expect(out.seen).toEqual(expect.arrayContaining(['Not run yet.', 'Sending: %s…', 'Done: %s.',
      'Stopped at %s. "Send existing records" resumes it.']));
  });

  it('on WordPress older than 5.0 it loads nothing and says what it needs, instead of failing', async () => {
    const mu = path.join(site.dir, 'wp-content/mu-plugins');
    await site.php(`wp_mkdir_p( '${mu}' );`);
    await writeFile(path.join(mu, 'old-wordpress.php'), "<?php\n$GLOBALS['wp_version'] = '4.9.8';\n");
    try {
      const out = JSON.parse(await site.php(`
        require_once ABSPATH . 'wp-admin/includes/admin.php';
        $admins = get_users( array( 'role' => 'administrator', 'number' => 1 ) );
        wp_set_current_user( $admins[0]->ID );
        ob_start();
        do_action( 'admin_notices' );
        echo wp_json_encode( array( 'notices' => ob_get_clean(),
          'loaded' => class_exists( 'Waypost_Bridge_Settings_Page', false ) ) );
      `)) as { notices: string; loaded: boolean };
      expect(out.loaded).toBe(false);
      expect(decodeEntities(out.notices))
        .toMatch(/Waypost Bridge needs WordPress 5\.0 and PHP 7\.4 or later; this site runs WordPress 4\.9\.8 on/);
    } finally {
      await rm(path.join(mu, 'old-wordpress.php'), { force: true });
    }
    expect(await site.php("echo class_exists( 'Waypost_Bridge_Settings_Page', false ) ? 'yes' : 'no';")).toBe('yes');
  });
});
