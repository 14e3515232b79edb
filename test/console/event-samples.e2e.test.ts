// The webhook form's event catalog in real Chromium: each event has a "Sample payload" button, named for its event,
// reachable and operable by keyboard, which opens that event's payload in a dialog without ticking the event.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import type { Waypost } from '../../src/sdk.js';
import { EVENT_TYPES } from '../../src/webhooks/catalog.js';
import { signedInConsole } from './browser.js';

const SHOT = join(tmpdir(), 'waypost-screenshots', 'event-sample.png');

describe.runIf(await hasChromium())('event samples in the webhook form, in Chromium', () => {
  let wp: Waypost;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ wp, browser, page } = await signedInConsole({ viewport: { width: 1280, height: 900 },
      password: 'samples e2e password' }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await wp?.close();
  });

  it('links every event to its sample payload, in a named dialog opened and closed from the keyboard', async () => {
    await page.getByRole('link', { name: 'Add webhook' }).first().click();
    for (const t of EVENT_TYPES) {
      await page.getByRole('button', { name: `Sample payload of ${t.label}`, exact: true }).waitFor();
    }

    const button = page.getByRole('button', { name: 'Sample payload of Booking Due Payment Completed', exact: true });
    await button.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Booking Due Payment Completed: sample payload' });
    const body = dialog.getByLabel('booking.due.payment.completed sample payload');
    await body.waitFor();
    const sample = JSON.parse((await body.textContent())!);
    expect(sample).toMatchObject({ type: 'booking.due.payment.completed', data: { is_due_payment: true } });
    expect(sample.id).toMatch(/^evt_/);
    await page.screenshot({ path: SHOT, animations: 'disabled' });

    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    // Focus goes back to the button, and opening a sample never subscribes to the event.
    expect(await button.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await page.getByLabel('Booking Due Payment Completed').isChecked()).toBe(false);
    await page.getByLabel('Booking Due Payment Completed').check();
    expect(await page.getByLabel('Booking Due Payment Completed').isChecked()).toBe(true);

    // With "Minimal" chosen, the sample is the minimal body that webhook would get.
    await page.getByTestId('payload-minimal').check();
    await button.click();
    const minimal = page.getByRole('dialog', { name: 'Booking Due Payment Completed: sample minimal payload' });
    const text = (await minimal.getByLabel('booking.due.payment.completed sample payload').textContent())!;
    expect(JSON.parse(text)).toMatchObject({ data: { resource: 'payments', booking_id: sample.data.booking_id } });
    expect(text).not.toContain('"amount"');
    await page.keyboard.press('Escape');
  });
});
