// The API reference page renders the event catalog: a Webhooks section with the 7 events, under the page's CSP,
// with nothing logged as an error.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import { testWaypost } from '../helpers/waypost.js';
import { launchChromium } from '../console/browser.js';
import { apiRoot } from '../../src/config.js';
import type { Waypost } from '../../src/sdk.js';
import { EVENT_TYPE_NAMES } from '../../src/webhooks/catalog.js';

describe.runIf(await hasChromium())('the event catalog on the API reference page, in Chromium', () => {
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

  it('lists the 7 events as webhooks, each opening its payload schema and headers', async () => {
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
    await page.screenshot({ path: join(tmpdir(), 'waypost-screenshots', 'reference-webhooks.png'), fullPage: false });
    expect(errors).toEqual([]);
  });
});
