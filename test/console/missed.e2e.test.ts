// Nothing missed while a webhook was off, in the console (real Chromium): a booking written while the webhook is
// disabled is counted by the re-enable offer ("Redeliver what was missed?"), and "Redeliver now" sends it, once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import type { Waypost } from '../../src/sdk.js';
import { createWebhook } from '../../src/webhooks/manage.js';
import { booking } from '../webhooks/engine/fixtures.js';
import { signedInConsole } from './browser.js';
import { startReceiver, type Receiver } from './receiver.js';

const W = { timeout: 15_000, interval: 100 };
const text = (l: Locator) => async () => (await l.textContent()) ?? '';

describe.runIf(await hasChromium())('events missed while disabled, in the console', () => {
  let wp: Waypost;
  let browser: Browser;
  let page: Page;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    ({ wp, browser, page } = await signedInConsole({ viewport: { width: 1280, height: 900 },
      password: 'missed e2e password' }));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await wp?.close();
    await receiver?.close();
  });

  it('counts the booking written while it was off in the re-enable offer, and Redeliver now sends it once',
    { timeout: 60_000 }, async () => {
    await createWebhook(wp.core, { name: 'CRM', url: receiver.url, events: ['booking.created'] });
    await page.goto('/admin/#/webhooks');
    const row = page.locator('tr[data-webhook="CRM"]');
    await row.getByRole('switch').click({ force: true }); // nothing pending: disabled without a question
    await expect.poll(text(row), W).toContain('Disabled');
    await wp.put('bookings', 7001, booking());
    expect(await wp.core.db.selectFrom('deliveries').select('id').execute()).toEqual([]); // nothing sent

    await row.getByRole('switch').click({ force: true });
    const offer = page.getByRole('dialog', { name: 'Redeliver what was missed?' });
    await expect.poll(text(offer), W).toContain('1 event happened while “CRM” was off. Send it now, once?');
    await offer.getByRole('button', { name: 'Redeliver now' }).click();
    await expect.poll(text(offer.getByTestId('recover-status')), W).toContain('Done: queued 1 missed event.');
    await offer.getByRole('button', { name: 'Done', exact: true }).click();
    await expect.poll(() => receiver.requests.length, W).toBe(1);
    const sent = JSON.parse(receiver.requests[0].body) as { type: string; data: { id: number } };
    expect([sent.type, sent.data.id]).toEqual(['booking.created', 7001]);

    // Offered again later (a recover from the row): nothing is sent twice.
    await row.getByRole('button', { name: 'Recover deliveries to CRM…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Recover deliveries to “CRM”' });
    await dialog.getByRole('button', { name: 'Redeliver now' }).click();
    await expect.poll(text(dialog.getByTestId('recover-status')), W).toContain('Nothing left to redeliver');
    await page.keyboard.press('Escape');
    expect(receiver.requests).toHaveLength(1);
  });
});
