// Keeping travellers' data no longer than needed, in the console (issue 34), in real Chromium: the webhook form's
// payload choice (minimal: ids and an API link) is saved and shown in the list; Settings keeps payloads and
// responses for their own times, refusing more than the log's; a pruned body reads "no longer kept" in the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import type { Waypost } from '../../src/sdk.js';
import { newId } from '../../src/ids.js';
import { listWebhooks } from '../../src/webhooks/manage.js';
import { pruneDeliveryLog } from '../../src/webhooks/retention.js';
import { seedDelivery } from '../webhooks/manage/fixtures.js';
import { signedInConsole } from './browser.js';

const W = { timeout: 15_000, interval: 100 };
const DAY = 86_400_000;

describe.runIf(await hasChromium())('payload privacy in the console, in Chromium', () => {
  let wp: Waypost;
  let base: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ wp, base, browser, page } = await signedInConsole({
      viewport: { width: 1280, height: 900 }, password: 'privacy e2e password',
    }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await wp?.close();
  });

  it('creates a webhook with a minimal payload, shows it in the list, and switches it back to full', async () => {
    await page.getByRole('link', { name: 'Add webhook' }).first().click();
    await page.getByLabel('Name').fill('Lean CRM');
    await page.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/hook');
    await page.getByLabel(/Booking Created/).check();
    expect(await page.getByLabel('Full record').isChecked()).toBe(true);
    await page.getByText('No personal fields leave Waypost').waitFor();
    await page.getByLabel('Minimal: ids and an API link only').check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('heading', { name: 'Lean CRM' }).waitFor();
    await expect.poll(async () => (await listWebhooks(wp.core))[0]?.payload, W).toBe('minimal');
    expect(await page.getByLabel('Minimal: ids and an API link only').isChecked()).toBe(true);

    await page.getByRole('link', { name: 'All webhooks' }).click();
    const row = page.locator('tr[data-webhook="Lean CRM"]');
    await expect.poll(async () => row.getByTestId('payload-note').textContent(), W).toBe('Minimal payload');

    await row.getByRole('button', { name: 'Edit Lean CRM' }).click();
    await page.getByLabel('Full record').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(async () => (await listWebhooks(wp.core))[0].payload, W).toBe('full');
  });

  it('keeps payloads and responses for their own times, never longer than the log', async () => {
    await page.getByRole('link', { name: 'Alerts & retention' }).click();
    const payloads = page.getByLabel('Keep payloads sent for (days)');
    await payloads.waitFor();
    expect(await payloads.inputValue()).toBe(''); // as long as the delivery
    await payloads.fill('45');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Enter a whole number of days from 1 to 30 (the log\'s), or leave it empty.').waitFor();
    expect(await payloads.getAttribute('aria-invalid')).toBe('true');

    await payloads.fill('7');
    await page.getByLabel('Keep receivers’ responses for (days)').fill('3');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(async () => wp.core.db.selectFrom('settings').selectAll()
      .where('name', 'in', ['payload_retention_days', 'response_retention_days']).orderBy('name').execute(), W)
      .toEqual([{ name: 'payload_retention_days', value: '7' }, { name: 'response_retention_days', value: '3' }]);
  });

  it('shows "no longer kept" where a pruned payload and response were', async () => {
    const hook = (await listWebhooks(wp.core))[0];
    const { deliveryId } = await seedDelivery(wp, hook.id, 'booking.created', 'succeeded');
    const at = Date.now() - 10 * DAY; // inside the log's 30 days, past the payloads' 7
    await wp.core.db.insertInto('delivery_attempts').values({
      id: newId('att', at), delivery_id: deliveryId, attempt: 1, started_at: new Date(at).toISOString(),
      duration_ms: 12, request_url: hook.url, request_headers: '{"X-Waypost-Event":"booking.created"}',
      request_body: '{"data":{"email":"ana@example.com"}}', response_status: 200, response_headers: '{}',
      response_body: '{"contact":"ana@example.com"}', error: null, success: 1,
    }).execute();
    await pruneDeliveryLog(wp.core);

    await page.goto(`${base}/admin/#/logs?delivery=${deliveryId}`);
    const notes = page.getByTestId('body-pruned');
    await expect.poll(() => notes.allTextContents(), W).toEqual([
      'Payload no longer kept (older than 7 days).', 'Response no longer kept (older than 3 days).',
    ]);
    expect(await page.getByTestId('attempt').textContent()).not.toContain('ana@example.com');
    // Redeliver still works: it sends the event again.
    await page.getByRole('button', { name: 'Redeliver' }).click();
    await expect.poll(async () => (await wp.core.db.selectFrom('deliveries').select('id')
      .where('redelivery_of', '=', deliveryId).execute()).length, W).toBe(1);
  });
});
