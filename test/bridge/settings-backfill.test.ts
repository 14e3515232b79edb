// "Send existing records" on a site where WP-Cron never runs (DISABLE_WP_CRON, no system cron), in real Chromium
// against a real WordPress (the WP Travel Engine 6.8.0 fixture's data) and a real Waypost: the page says what that
// means for the backfill and the retry queue, drives the batches itself and finishes; a second run that changes
// nothing says so ("0 sent, N unchanged"). WP Travel Engine's code is not loaded (the fixture holds what it wrote): a
// must-use plugin defines its version constant, as the active product does, so the prerequisites read as on a real
// site. Screenshots go to $TMPDIR/waypost-bridge-screenshots/ (wordpress-settings-connected.png is the README's).
import { mkdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import { hasChromium } from '../helpers/services.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { readStored } from '../../src/records/rows.js';
import { launchChromium } from '../console/browser.js';
import { BRIDGE_DIR, hasWordPress, startWordPress, type WordPress } from './wordpress.js';
import { localOnly, signInToWpAdmin } from './wp-admin.js';

const SHOTS = path.join(tmpdir(), 'waypost-bridge-screenshots');
const ADMIN = { login: 'cronless-owner', password: 'no cron here 42' };
const W = { timeout: 20_000, interval: 200 };
const available = (await hasWordPress()) && (await hasChromium());

describe.runIf(available)('WordPress bridge: Send existing records without WP-Cron, in Chromium', () => {
  let waypost: Waypost;
  let app: FastifyInstance;
  let address: string;
  let site: WordPress;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  const settingsUrl = () => `${site.url}/wp-admin/options-general.php?page=waypost-bridge`;
  const notice = () => page.locator('#waypost-notice');
  const progress = () => page.locator('#waypost-backfill-text').innerText();
  /** wp-cron.php requests the site served (none may come: WP-Cron is disabled and nothing calls it). */
  const cronRuns = async () => Number(await site.php("echo (int) get_option( 'waypost_test_cron_runs', 0 );"));

  beforeAll(async () => {
    waypost = await testWaypost();
    app = await waypost.app();
    address = await app.listen({ port: 0, host: '127.0.0.1' });
    site = await startWordPress({ fixture: 'wpte-6.8.0', plugins: [BRIDGE_DIR],
      constants: { DISABLE_WP_CRON: true } });
    const mu = path.join(site.dir, 'wp-content/mu-plugins');
    await mkdir(mu, { recursive: true });
    await writeFile(path.join(mu, 'waypost-test.php'), [
      '<?php',
      '// Stands in for WP Travel Engine 6.8.0 being active (it wrote the fixture\'s data; its code is not here).',
      "define( 'WP_TRAVEL_ENGINE_VERSION', '6.8.0' );",
      '// Counts WP-Cron runs, to show that none did the work.',
      "if ( defined( 'DOING_CRON' ) && DOING_CRON ) {",
      "\tupdate_option( 'waypost_test_cron_runs', (int) get_option( 'waypost_test_cron_runs', 0 ) + 1, false );",
      '}',
      '',
    ].join('\n'));
    await site.php(`
      $id = wp_insert_user( array( 'user_login' => '${ADMIN.login}', 'user_pass' => '${ADMIN.password}',
        'user_email' => 'cronless@example.org', 'role' => 'administrator' ) );
      if ( is_wp_error( $id ) ) { fwrite( STDERR, $id->get_error_message() ); exit( 1 ); }
    `);
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
    context = await localOnly(await browser.newContext({ viewport: { width: 1280, height: 900 } }));
    context.setDefaultTimeout(20_000);
    page = await context.newPage();
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await site?.close();
    await app?.close();
    await waypost?.close();
  });

  it('connects, with every prerequisite met, and says what DISABLE_WP_CRON means for the retry queue', async () => {
    await signInToWpAdmin(page, site.url, ADMIN.login, ADMIN.password);
    await page.goto(settingsUrl());
    await page.getByLabel('Waypost URL').fill(address);
    await page.getByLabel('Host token').fill('test-host-token');
    await page.getByRole('button', { name: 'Save connection' }).click();
    await expect.poll(() => notice().innerText(), W).toMatch(/Host token saved/);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => notice().innerText(), W).toMatch(/Connected to Waypost/);
    expect(await page.locator('#waypost-prerequisites tr[data-ok="no"]').count()).toBe(0);
    expect(await page.locator('#waypost-prerequisites tr[data-ok="yes"]').count()).toBe(5);
    expect(await page.locator('#waypost-queue-cron-disabled').innerText())
      .toMatch(/WP-Cron is disabled on this site \(DISABLE_WP_CRON\)[\s\S]*only when a system cron calls wp-cron\.php/);
    expect(await page.locator('#waypost-cron-disabled').innerText()).toMatch(/keep this page open/);
    await page.screenshot({ path: path.join(SHOTS, 'wordpress-settings-connected.png'), fullPage: true });
  });

  let sent = 0;
  it('sends the existing records while the page is open, with no WP-Cron run', async () => {
    expect(await progress()).toMatch(/Not run yet/);
    await page.getByRole('button', { name: 'Send existing records' }).click();
    await expect.poll(() => notice().innerText(), W).toMatch(/WP-Cron is disabled on this site, so keep the page open/);
    await expect.poll(progress, { timeout: 30_000, interval: 250 }).toMatch(/^Done:/);
    const counts = /Done: (\d+) of (\d+) records \((\d+) sent, (\d+) unchanged, (\d+) skipped, (\d+) failed\)/;
    const [, done, total, s, unchanged, , failed] = counts.exec(await progress())!;
    expect(Number(done)).toBe(Number(total));
    expect(Number(total)).toBeGreaterThan(10);
    expect(Number(s)).toBeGreaterThan(10);
    expect([Number(unchanged), Number(failed)]).toEqual([0, 0]);
    sent = Number(s);
    expect(await readStored(waypost.core.db, 'trips', 19)).toMatchObject({ id: 19, title: 'Everest Base Camp Trek' });
    expect(await cronRuns()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, 'wordpress-settings-backfill-done-without-cron.png'),
      fullPage: true });
  }, 60_000);

  it('a second run that changes nothing says "0 sent, N unchanged"', async () => {
    await page.getByRole('button', { name: 'Send existing records' }).click();
    await expect.poll(progress, { timeout: 30_000, interval: 250 }).toMatch(/^Done:/);
    expect(await progress()).toMatch(new RegExp(`\\(0 sent, ${sent} unchanged, \\d+ skipped, 0 failed\\)`));
    expect(await cronRuns()).toBe(0);
  }, 60_000);
});
