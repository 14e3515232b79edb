// The rendered API reference works in a real browser with the network cut off: every asset and the document
// come from Waypost itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import { testWaypost } from '../helpers/waypost.js';
import { launchChromium } from '../console/browser.js';
import { apiRoot } from '../../src/config.js';
import type { Waypost } from '../../src/sdk.js';

const chromiumHere = await hasChromium();

describe.skipIf(!chromiumHere)('API reference at /docs in Chromium', () => {
  let wp: Waypost;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    wp = await testWaypost({ config: { port: 0 } });
    const { url } = await wp.serve('api');
    base = `${url}${apiRoot(wp.config)}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await wp?.close();
  });

  it('renders every endpoint with no request leaving the machine', async () => {
    const page = await browser.newPage();
    const external: string[] = [];
    const failed: string[] = [];
    await page.route('**/*', (route) => {
      const u = new URL(route.request().url());
      if (u.hostname === '127.0.0.1' || u.protocol === 'data:') return route.continue();
      external.push(u.href);
      return route.abort();
    });
    const consoleErrors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(m.text()); });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    page.on('requestfailed', (r) => failed.push(r.url()));
    page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
    await page.goto(`${base}/docs`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 15_000 });
    const paths = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path') ?? e.textContent ?? ''));
    for (const r of ['bookings', 'trips', 'customers', 'payments']) {
      expect(paths.some((p) => p.endsWith(`/${r}`))).toBe(true);
      expect(paths.some((p) => p.endsWith(`/${r}/{id}`))).toBe(true);
    }
    expect(await page.textContent('body')).toContain('REST API');
    // Waypost's page: its title, its mark and bar; no Swagger top bar (logo, "explore" URL field).
    expect(await page.title()).toBe('Waypost REST API reference');
    expect(await page.textContent('.waypost-bar')).toContain('Waypost');
    expect(await page.$$eval('.topbar, .topbar-wrapper, .download-url-input', (els) => els.length)).toBe(0);
    expect(await page.$eval('link[rel="icon"]', (l) => (l as HTMLLinkElement).href)).toMatch(/waypost\.svg$/);
    expect(await page.$eval('.waypost-bar a', (a) => (a as HTMLAnchorElement).href)).toBe(`${base}/openapi.json`);
    const summaries = await page.$$eval('.opblock-summary-description', (els) => els.map((e) => e.textContent));
    expect(summaries).toEqual(expect.arrayContaining(['List bookings', 'Get a booking', 'Check your credentials']));
    // Loaded under its Content-Security-Policy with nothing refused.
    expect(consoleErrors).toEqual([]);
    expect(external).toEqual([]);
    expect(failed).toEqual([]);
    await page.close();
  });
});
