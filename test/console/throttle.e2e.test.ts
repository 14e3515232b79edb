// The webhook throttle in the console, in real Chromium: the form's "Max deliveries per second" field refuses
// anything but 1-1000 (or empty) with a message at the field, saves the limit, and the list and the webhook's page
// show it; emptying the field removes it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import type { Waypost } from '../../src/sdk.js';
import { listWebhooks } from '../../src/webhooks/manage.js';
import { signedInConsole } from './browser.js';

const W = { timeout: 15_000, interval: 100 };
const LIMIT = 'Max deliveries per second (optional)';
const MESSAGE = 'Enter a whole number from 1 to 1000, or leave it empty for no limit.';

describe.runIf(await hasChromium())('webhook throttle in the console, in Chromium', () => {
  let wp: Waypost;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ wp, browser, page } = await signedInConsole({
      viewport: { width: 1280, height: 900 }, password: 'throttle e2e password',
    }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await wp?.close();
  });

  it('refuses a bad limit at its field, saves a good one, and shows it in the list and on the webhook', async () => {
    await page.getByRole('link', { name: 'Add webhook' }).first().click();
    await page.getByLabel('Name').fill('Small CRM');
    await page.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/hook');
    await page.getByLabel(/Booking Created/).check();
    const field = page.getByLabel(LIMIT);
    expect(await field.getAttribute('placeholder')).toBe('No limit');
    for (const bad of ['abc', '0', '1001', '2.5']) {
      await field.fill(bad);
      await page.getByRole('button', { name: 'Add webhook' }).click();
      await page.getByText(MESSAGE).waitFor();
      expect(await page.locator('.field-invalid').count()).toBe(1);
      expect(await field.getAttribute('aria-invalid')).toBe('true');
    }
    expect(await listWebhooks(wp.core)).toEqual([]);

    await field.fill('20');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('heading', { name: 'Small CRM' }).waitFor();
    await expect.poll(async () => page.getByTestId('throttle').textContent(), W)
      .toBe('At most 20 deliveries a second');
    expect((await listWebhooks(wp.core))[0].max_per_second).toBe(20);
    expect(await page.getByLabel(LIMIT).inputValue()).toBe('20');

    await page.getByRole('link', { name: 'All webhooks' }).click();
    const row = page.locator('tr[data-webhook="Small CRM"]');
    await expect.poll(async () => row.getByTestId('throttle').textContent(), W).toBe('At most 20/s');
  });

  it('emptying the field removes the limit', async () => {
    await page.locator('tr[data-webhook="Small CRM"]').getByRole('button', { name: 'Edit Small CRM' }).click();
    await page.getByLabel(LIMIT).fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(async () => (await listWebhooks(wp.core))[0].max_per_second, W).toBeNull();
    await expect.poll(() => page.getByTestId('throttle').count(), W).toBe(0);
    await page.getByRole('link', { name: 'All webhooks' }).click();
    await page.locator('tr[data-webhook="Small CRM"]').waitFor();
    expect(await page.locator('tr[data-webhook="Small CRM"]').getByTestId('throttle').count()).toBe(0);
  });
});
