// The Connect WordPress page in real Chromium, at 1280 and 390 px: download the plugin, make a host token (shown
// once; a second one asks first, and the old one stops working), and the status turning green when a request with
// the bridge's User-Agent arrives. Screenshots land in $TMPDIR/waypost-screenshots/.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { freePort, hasChromium } from '../helpers/services.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { issueSetupToken, setupLink } from '../../src/admin/setup.js';
import { wordpressPlugin } from '../../src/admin/wordpress-routes.js';
import { buildConsole, launchChromium } from './browser.js';
import { axeViolations, describeViolations } from './axe.js';

const SHOTS = join(tmpdir(), 'waypost-screenshots');
const W = { timeout: 15_000, interval: 100 };

describe.runIf(await hasChromium())('Connect WordPress in the console, in Chromium', () => {
  let wp: Waypost;
  let browser: Browser;
  let page: Page;
  let base: string;
  const realZip = wordpressPlugin.zipPath;
  const dir = mkdtempSync(join(tmpdir(), 'waypost-plugin-'));
  const zipBytes = Buffer.concat([Buffer.from('PK\u0005\u0006', 'latin1'), Buffer.alloc(18), Buffer.alloc(4000, 7)]);

  beforeAll(async () => {
    buildConsole();
    wordpressPlugin.zipPath = join(dir, 'waypost-bridge.zip');
    writeFileSync(wordpressPlugin.zipPath, zipBytes);
    const port = await freePort();
    // No WAYPOST_HOST_TOKEN: the token is stored, so the console can make one.
    wp = await testWaypost({ env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' },
      config: { port, host: '127.0.0.1', baseUrl: `http://127.0.0.1:${port}` } });
    base = (await wp.serve('all')).url!;
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: base,
      acceptDownloads: true });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    const token = await issueSetupToken(wp.core);
    await page.goto(setupLink(wp.core, token!));
    await page.getByLabel('E-mail').fill('ops@example.com');
    await page.getByLabel('Password', { exact: true }).fill('wordpress e2e password');
    await page.getByLabel('Repeat password').fill('wordpress e2e password');
    await page.getByRole('button', { name: 'Create admin and sign in' }).click();
    await page.getByRole('heading', { name: 'Webhooks & API' }).waitFor();
    mkdirSync(SHOTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    wordpressPlugin.zipPath = realZip;
    rmSync(dir, { recursive: true, force: true });
    await browser?.close();
    await wp?.close();
  });

  const bridgeCall = (token: string, plugin = wp.config.version) => fetch(`${base}/host/v1/batch`, {
    method: 'POST', body: JSON.stringify({ operations: [] }),
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json',
      'user-agent': `WaypostBridge/${plugin}; WordPress/6.1.1; WPTravelEngine/6.8.0`,
      'x-waypost-site-url': 'https://shop.example.com', 'x-waypost-queue-length': '0' } });
  const statusBadge = () => page.getByTestId('wordpress-status');

  it('walks a site owner through download, token and a status that turns green', async () => {
    await page.getByRole('link', { name: 'Connect WordPress' }).click();
    await page.getByRole('heading', { name: 'Connect WordPress' }).waitFor();
    expect(await page.getByRole('link', { name: 'Connect WordPress' }).getAttribute('aria-current')).toBe('page');
    expect(await page.title()).toBe('Connect WordPress · Waypost');

    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download waypost-bridge.zip' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('waypost-bridge.zip');
    const saved = join(dir, 'downloaded.zip');
    await file.saveAs(saved);
    expect(readFileSync(saved).equals(zipBytes)).toBe(true);

    expect(await page.getByTestId('waypost-url').textContent()).toBe(wp.config.baseUrl);
    await expect.poll(() => statusBadge().textContent(), W).toBe('Waiting for the site’s first call');

    // No token yet: one click makes it, and it is shown once.
    await page.getByRole('button', { name: 'Make a new host token' }).click();
    const token = (await page.getByTestId('host-token').textContent())!;
    expect(token).toMatch(/^wph_[A-Za-z0-9_-]{32}$/);
    await expect.poll(() => page.getByRole('button', { name: 'Copy host token' }).isVisible(), W).toBe(true);

    expect((await bridgeCall(token)).status).toBe(200);
    await expect.poll(() => statusBadge().textContent(), W).toBe('Connected');
    const facts = await page.getByTestId('wordpress-facts').textContent();
    for (const shown of ['just now', 'https://shop.example.com', wp.config.version, '6.1.1', '6.8.0', 'empty']) {
      expect(facts).toContain(shown);
    }
    expect(await page.getByTestId('plugin-version').textContent()).toBe(wp.config.version);
    await page.screenshot({ path: join(SHOTS, 'connect-wordpress-1280.png'), fullPage: true });
    expect(describeViolations('connected, token shown', 1280, await axeViolations(page))).toBe('');

    // Another visit: replacing the token in use asks first, and the old one stops working.
    await page.reload();
    await page.getByRole('button', { name: 'Make a new host token' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replace the host token?' });
    expect(await dialog.textContent()).toContain('stops working at once');
    await dialog.getByRole('button', { name: 'Make a new host token' }).click();
    const second = (await page.getByTestId('host-token').textContent())!;
    expect(second).not.toBe(token);
    expect((await bridgeCall(token)).status).toBe(401);
    // A site on another version of the plugin is told the download is this Waypost's.
    expect((await bridgeCall(second, '0.0.9')).status).toBe(200);
    await expect.poll(() => page.getByTestId('plugin-version').textContent(), W)
      .toBe(`0.0.9 (the download above is ${wp.config.version}: upload it to update)`);
  }, 60_000);

  it('fits a 390 px phone, and says how to build the plugin when the zip is missing', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    wordpressPlugin.zipPath = join(dir, 'missing.zip');
    await page.goto('/admin/#/wordpress');
    await page.reload();
    await page.getByRole('heading', { name: 'Connect WordPress' }).waitFor();
    // The tab row scrolls sideways on a phone: the open tab is the one in view.
    const tab = await page.getByRole('link', { name: 'Connect WordPress' }).boundingBox();
    expect(tab!.x).toBeGreaterThanOrEqual(0);
    expect(tab!.x + tab!.width).toBeLessThanOrEqual(390);
    const callout = page.getByText('The plugin has not been built on this server');
    await callout.waitFor();
    expect(await callout.textContent()).toContain('npm run build');
    await expect.poll(() => statusBadge().textContent(), W).toBe('Connected');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SHOTS, 'connect-wordpress-390.png'), fullPage: true });
    expect(describeViolations('not built, connected', 390, await axeViolations(page))).toBe('');
  }, 60_000);
});
