// The console's Events view in real Chromium at 1280 and 390 px: a webhook whose filter skips one of two bookings
// written through the Host API, the Events tab filtered by type, the skipped event saying "Skipped by its filter",
// and "Send to webhook…", after which the receiver gets that very event and its delivery shows, linked to Logs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import { HOST_AUTH } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { createWebhook } from '../../src/webhooks/manage.js';
import { booking } from '../webhooks/engine/fixtures.js';
import { signedInConsole } from './browser.js';
import { startReceiver, type Receiver } from './receiver.js';

const W = { timeout: 15_000, interval: 100 };

describe.runIf(await hasChromium()).each([1280, 390])('the Events view at %i px', (width) => {
  let wp: Waypost;
  let browser: Browser;
  let page: Page;
  let base: string;
  let receiver: Receiver;

  beforeAll(async () => {
    ({ wp, browser, page, base } = await signedInConsole({
      viewport: { width, height: 900 }, password: 'events e2e password',
    }));
    receiver = await startReceiver();
    await createWebhook(wp.core, { name: 'Trip 8 only', url: receiver.url, events: ['booking.created'],
      filter: { field: 'data.trips[].trip_id', eq: 8 } });
    for (const [id, trip] of [[1, 7], [2, 8]]) {
      const body = booking({ trips: [{ ...(booking().trips as object[])[0], trip_id: trip }] });
      const res = await fetch(`${base}/host/v1/bookings/${id}`, { method: 'PUT',
        headers: { ...HOST_AUTH, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status, await res.text()).toBeLessThan(300);
    }
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await wp?.close();
  });

  it('shows the skipped event as "Skipped by its filter" and sends it to the webhook', async () => {
    await expect.poll(() => receiver.requests.length, W).toBe(1); // booking 2's, trip 8
    await page.goto(`${base}/admin/#/events`);
    await page.getByRole('heading', { name: 'Events', exact: true }).waitFor();
    await page.getByLabel('Event type').selectOption('booking.created');
    await expect.poll(() => page.url(), W).toContain('type=booking.created');
    const rows = page.locator('table[aria-label="Events"] tbody tr');
    await expect.poll(() => rows.count(), W).toBe(2);
    expect(await rows.getByTestId('record').allTextContents()).toEqual(['booking 2', 'booking 1']);
    await page.screenshot({ path: join(tmpdir(), `waypost-events-${width}.png`), fullPage: true });

    await rows.nth(1).getByRole('button', { name: /Details of event/ }).click();
    const panel = page.getByRole('dialog', { name: 'Event details' });
    const outcome = panel.getByTestId('outcome');
    await expect.poll(() => outcome.textContent(), W).toContain('Skipped by its filter');
    expect(await panel.getByLabel('Event payload').textContent()).toContain('"type": "booking.created"');
    await page.screenshot({ path: join(tmpdir(), `waypost-event-panel-${width}.png`) });

    await panel.getByRole('button', { name: 'Send to webhook…' }).click();
    const send = page.getByRole('dialog', { name: 'Send to webhook' });
    expect(await send.getByLabel('Webhook').inputValue()).toMatch(/^wh_/);
    await page.screenshot({ path: join(tmpdir(), `waypost-event-send-${width}.png`) });
    await send.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText(/Event sent to Trip 8 only/).waitFor();

    await expect.poll(() => receiver.requests.length, W).toBe(2);
    const got = JSON.parse(receiver.requests[1].body) as { type: string; data: { id: number } };
    expect(got).toMatchObject({ type: 'booking.created', data: { id: 1 } });
    await expect.poll(() => outcome.textContent(), W).toContain('Succeeded · 200');
    const link = panel.getByRole('link', { name: /in Logs/ });
    expect(await link.getAttribute('href')).toMatch(/^#\/logs\?delivery=dlv_/);
    await page.screenshot({ path: join(tmpdir(), `waypost-event-sent-${width}.png`) });
    await link.click();
    await page.getByRole('dialog', { name: 'Delivery details' }).waitFor();
  });
});
