// The rendered API reference works in a real browser with the network cut off: every asset and the document
// come from Waypost itself. axe-core finds no violation in it at phone and desktop widths.
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import { testWaypost } from '../helpers/waypost.js';
import { launchChromium } from '../console/browser.js';
import { apiRoot } from '../../src/config.js';
import type { Waypost } from '../../src/sdk.js';
import { EVENT_TYPE_NAMES } from '../../src/webhooks/catalog.js';

const chromiumHere = await hasChromium();
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation { id: string; impact: string; nodes: Array<{ target: string[] }> }

/** axe-core's violations on the page as it is now (evaluated over CDP, so the page's CSP does not refuse it). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(o: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    // Every rule axe runs by default (WCAG 2.0-2.2 A/AA and best practices), touch targets of 24 px included.
    return (await axe.run({ rules: { 'target-size': { enabled: true } } })).violations;
  });
  return violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
}

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
    const paths = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path')
      ?? e.textContent ?? ''));
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

  it.each([390, 1280])('has no axe-core violation at %i px, listed, opened, trying out and with the schemas shown',
    async (width) => {
    const page = await browser.newPage({ viewport: { width, height: 800 } });
    const problems: string[] = [];
    page.on('console',
      (m) => { if (m.type() === 'error' || /Content.Security.Policy/i.test(m.text())) problems.push(m.text()); });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${base}/docs`);
    expect(await page.$eval('meta[name="viewport"]', (m) => m.getAttribute('content'))).toContain('width=device-width');
    await page.waitForSelector('.opblock-summary-control', { timeout: 15_000 });
    const found: Record<string, string[]> = {};
    found.listed = await axeViolations(page);
    await page.click('.opblock-summary-control >> nth=0');
    await page.waitForSelector('.opblock-body select');
    found.opened = await axeViolations(page);
    await page.click('.try-out__btn');
    await page.waitForSelector('.btn.execute');
    found.tryingOut = await axeViolations(page);
    await page.click('.models .json-schema-2020-12-expand-deep-button >> nth=0');
    await page.waitForSelector('.models .json-schema-2020-12-body:not(.json-schema-2020-12-body--collapsed)');
    found.schemas = await axeViolations(page);
    expect(found).toEqual({ listed: [], opened: [], tryingOut: [], schemas: [] });
    // No script, style or image refused by the page's Content-Security-Policy, and no other error.
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  // The event catalog (the document's webhooks section) renders as its own section.
  it('lists the 9 events as webhooks, each opening its payload schema and headers', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/docs`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 15_000 });
    const body = (await page.textContent('body')) ?? '';
    expect(body).toContain('Webhooks');
    for (const type of EVENT_TYPE_NAMES) expect(body, type).toContain(type);
    const payment = page.locator('.opblock', { hasText: 'booking.payment.completed' }).first();
    await payment.locator('.opblock-summary').click();
    await page.getByText('X-Waypost-Signature').first().waitFor();
    await page.screenshot({ path: join(tmpdir(), 'waypost-reference-webhooks.png'), fullPage: false });
    expect(errors).toEqual([]);
    await page.close();
  });
});
