// The Privacy tab, in real Chromium: an export downloads everything held about the person as JSON; "Erase…" opens a
// dialog that says what will go and which webhooks were already sent it, and the erasure then shows its outcome and
// its row in the list (asked by the signed-in admin, the e-mail only as a hash).
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import type { Waypost } from '../../src/sdk.js';
import { createWebhook } from '../../src/webhooks/manage.js';
import { DeliveryWorker } from '../../src/webhooks/index.js';
import { signedInConsole } from './browser.js';
import { startReceiver, type Receiver } from './receiver.js';

const W = { timeout: 30_000, interval: 100 };
const EMAIL = 'lea.fontaine@example.fr';

describe.runIf(await hasChromium())('the Privacy tab, in Chromium', () => {
  let wp: Waypost;
  let browser: Browser;
  let page: Page;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    ({ wp, browser, page } = await signedInConsole({ viewport: { width: 1280, height: 900 }, acceptDownloads: true,
      password: 'privacy e2e password' }));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await wp?.close();
    await receiver?.close();
  });

  it('exports, then erases after saying what will go', { timeout: 120_000 }, async () => {
    await createWebhook(wp.core, { name: 'CRM', url: receiver.url, events: ['booking.created', 'customer.created'] });
    await wp.put('customers', 8, { email: EMAIL, first_name: 'Léa', last_name: 'Fontaine' });
    await wp.put('bookings', 9, { status: 'booked', currency: 'EUR', total_amount: '800.00',
      customer: { id: 8, email: EMAIL }, engine_version: '6.8.0', cart_version: '4.1' });
    await new DeliveryWorker(wp.core).drain();

    await page.goto('/admin/#/privacy');
    await page.getByRole('heading', { name: 'Travellers’ personal data' }).or(
      page.getByRole('heading', { name: "Travellers' personal data" })).waitFor();
    await page.getByRole('button', { name: 'Erase…' }).click();
    await page.getByRole('alert').getByText('Enter the person\'s e-mail address.').waitFor();
    await page.getByLabel('E-mail address').fill(EMAIL.toUpperCase());

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export data' }).click();
    const saved = join(mkdtempSync(join(tmpdir(), 'waypost-privacy-')), 'export.json');
    await (await download).saveAs(saved);
    const exported = JSON.parse(readFileSync(saved, 'utf8'));
    expect(exported.records.customers).toMatchObject([{ id: 8, first_name: 'Léa' }]);
    expect(exported.deliveries).toHaveLength(2);

    await page.getByRole('button', { name: 'Erase…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Erase this person\'s data?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('delete 1 customer record and 0 enquiries');
    expect(await dialog.textContent()).toContain(`CRM ${receiver.url} (2 deliveries)`);
    await page.screenshot({ path: 'test-results/privacy-confirm.png' });
    await dialog.getByRole('button', { name: 'Erase', exact: true }).click();
    const status = page.getByRole('status').filter({ hasText: 'Erased' });
    await status.waitFor(W);
    expect(await status.textContent()).toContain('1 customer, 1 booking (kept without personal data)');
    const row = page.locator('tr[data-erasure]').first();
    await expect.poll(() => row.textContent(), W).toMatch(/admin \(adm_\w+ ops@example\.com\)succeeded/);
    await page.screenshot({ path: 'test-results/privacy-done.png', fullPage: true });
    expect(await page.content()).not.toContain(EMAIL);
    expect(await wp.core.db.selectFrom('customers').selectAll().execute()).toEqual([]);
  });
});
