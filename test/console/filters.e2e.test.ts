// The payload filter in the console, in real Chromium at 1280 and 390 px: the fields of the chosen events as
// suggestions (a click adds a condition), a preview over the last 50 real events ("Would have sent 3 of the last 4"),
// a server 400 shown at the filter, and a saved filter that matched none noted in the list and on the webhook.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import type { Waypost } from '../../src/sdk.js';
import { createWebhook, listWebhooks } from '../../src/webhooks/manage.js';
import { booking } from '../webhooks/engine/fixtures.js';
import { signedInConsole } from './browser.js';

const W = { timeout: 15_000, interval: 100 };

describe.runIf(await hasChromium()).each([1280, 390])('webhook filters in the console at %i px', (width) => {
  let wp: Waypost;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ wp, browser, page } = await signedInConsole({
      viewport: { width, height: 900 }, password: 'filters e2e password',
    }));
    // Four real events of booking.created (a subscriber makes them stored): three in EUR, one in USD.
    await createWebhook(wp.core, { name: 'Everything', url: 'http://127.0.0.1:9/all', events: ['booking.created'] });
    for (let id = 1; id <= 4; id++) await wp.put('bookings', id, booking({ currency: id === 4 ? 'USD' : 'EUR' }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await wp?.close();
  });

  it('suggests fields, previews the filter, refuses an unknown field at the filter and saves a good one', async () => {
    await page.getByRole('link', { name: 'Add webhook' }).first().click();
    await page.getByLabel('Name').fill('EUR only');
    await page.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/eur');
    await page.getByLabel(/Booking Created/).check();
    await page.getByText(/Fields of the chosen events/).click();
    await page.getByRole('button', { name: 'data.currency', exact: true }).click();
    const filter = page.getByLabel('Filter (optional)');
    expect(JSON.parse(await filter.inputValue())).toEqual({ all: [{ field: 'data.currency', eq: '' }] });
    await filter.fill('{"field": "data.currency", "eq": "EUR"}');
    await page.getByRole('button', { name: 'Preview on recent events' }).click();
    await expect.poll(() => page.getByTestId('filter-preview').textContent(), W)
      .toBe('Would have sent 3 of the last 4 events.');
    await page.screenshot({ path: join(tmpdir(), `waypost-filter-editor-${width}.png`), fullPage: true });

    await filter.fill('{"field": "data.curency", "eq": "EUR"}');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    // The console capitalises the server's message: "Filter.field: unknown field …".
    await page.getByText(/filter\.field: unknown field "data\.curency"/i).waitFor();
    expect(await filter.getAttribute('aria-invalid')).toBe('true');
    expect((await listWebhooks(wp.core)).map((w) => w.name)).toEqual(['Everything']);

    await filter.fill('{"field": "data.currency", "eq": "GBP"}');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('heading', { name: 'EUR only' }).waitFor();
    await expect.poll(() => page.getByTestId('filter-never').textContent(), W)
      .toContain('matched none of the last 4 events');
    await page.getByRole('link', { name: 'All webhooks' }).click();
    const note = page.locator('tr[data-webhook="EUR only"]').getByTestId('filter-note');
    await expect.poll(() => note.textContent(), W).toBe('Filtered: matched none of the last 4 events');
    await page.screenshot({ path: join(tmpdir(), `waypost-filter-list-${width}.png`), fullPage: true });
    const saved = (await listWebhooks(wp.core)).find((w) => w.name === 'EUR only');
    expect(saved?.filter).toEqual({ field: 'data.currency', eq: 'GBP' });
  });
});
