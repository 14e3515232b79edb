// The console's API Keys tab offers the Postman collection: a named link that downloads the file Postman imports.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import { signedInConsole } from '../console/browser.js';
import type { Waypost } from '../../src/sdk.js';

describe.runIf(await hasChromium())('the Postman collection from the API Keys tab', () => {
  let wp: Waypost;
  let base: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    // The base URL is the real one: the link points at the API through it.
    ({ wp, base, browser, page } = await signedInConsole({ viewport: { width: 1280, height: 800 },
      acceptDownloads: true, password: 'postman link password' }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await wp?.close();
  });

  it('downloads the collection Postman imports, named for what it is', async () => {
    await page.getByRole('link', { name: 'API Keys' }).click();
    const link = page.getByRole('link', { name: 'Download the Postman collection' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(`${base}/rest/waypost/api/v1/postman.json`);
    await page.screenshot({ path: join(tmpdir(), 'waypost-keys-postman.png') });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('waypost.postman_collection.json');
    // Saved, not read from path(): the run's one Chromium is connected to, and a connected browser's downloads
    // are streamed to the test instead of left on disk.
    const saved = join(tmpdir(), `waypost-postman-${process.pid}.json`);
    await download.saveAs(saved);
    const collection = JSON.parse(readFileSync(saved, 'utf8'));
    expect(collection.info.name).toBe('Waypost REST API');
    expect(collection.variable.map((v: { key: string }) => v.key)).toEqual(['baseUrl', 'accessToken', 'accessSecret']);
    expect(collection.variable[0].value).toBe(base);
  });
});
