// The Logs tab's search box, in real Chromium at 1280 and 390 px: it says what it searches, a traveller's e-mail finds
// the deliveries about their booking and payment (not another traveller's), a trip's title finds that trip's, an id
// still finds its delivery, and a search too short says why. Screenshots: the temp dir's waypost-screenshots/.
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import type { Waypost } from '../../src/sdk.js';
import { createWebhook } from '../../src/webhooks/manage.js';
import { booking, payment } from '../webhooks/engine/fixtures.js';
import { signedInConsole } from './browser.js';
import { startReceiver, type Receiver } from './receiver.js';

const SHOTS = join(tmpdir(), 'waypost-screenshots');
const W = { timeout: 20_000, interval: 100 };
const trip = (title: string) => ({ trip_id: 7, title, start_date: '2027-05-01', travellers: 2,
  line_items: [{ label: 'Adult', quantity: 2, price: '625.00', total: '1250.00' }] });

describe.runIf(await hasChromium()).each([1280, 390])('the Logs search in Chromium at %i px', (width) => {
  let wp: Waypost;
  let browser: Browser;
  let page: Page;
  let receiver: Receiver;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    receiver = await startReceiver();
    ({ wp, browser, page } = await signedInConsole({ viewport: { width, height: 900 },
      password: 'log search e2e password' }));
    await createWebhook(wp.core, { name: 'CRM', url: receiver.url,
      events: ['booking.created', 'booking.payment.completed'] });
    await wp.put('bookings', 1042, booking({ customer: { email: 'ana.silva@example.com', first_name: 'Ana',
      last_name: 'Silva' }, trips: [trip('Douro Valley Wine Trail')] }));
    await wp.put('payments', 9001, payment({ booking_id: 1042, status: 'completed' }));
    await wp.put('bookings', 1043, booking({ customer: { email: 'ben.okafor@example.org', first_name: 'Ben',
      last_name: 'Okafor' }, trips: [trip('Sahara Nights')] }));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await wp?.close();
    await receiver?.close();
  });

  const records = () => page.getByRole('table', { name: 'Deliveries' }).getByTestId('record').allTextContents();
  const search = async (text: string) => {
    const box = page.getByRole('searchbox', { name: 'Search deliveries by e-mail, name, trip or id' });
    await box.fill(text);
    await box.press('Enter');
  };

  it('finds a traveller\'s deliveries by e-mail, a trip\'s by title, and a delivery by id', async () => {
    await page.goto('/admin/#/logs');
    const box = page.getByRole('searchbox', { name: 'Search deliveries by e-mail, name, trip or id' });
    expect(await box.getAttribute('placeholder')).toBe('Search by e-mail, name, trip or id');
    // The placeholder is read whole: the box is wider than its text.
    expect(await box.evaluate((el: HTMLInputElement) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await page.screenshot({ path: join(SHOTS, `logs-search-empty-${width}.png`), animations: 'disabled' });
    await expect.poll(records, W).toEqual(['booking 1043', 'payment 9001', 'booking 1042']);

    await search('ana.silva@example.com');
    await expect.poll(records, W).toEqual(['payment 9001', 'booking 1042']);
    expect(page.url()).toContain('q=ana.silva%40example.com');
    // The box and the rows stay within the screen.
    const boxRight = await box.evaluate((el) => el.getBoundingClientRect().right);
    expect(boxRight).toBeLessThanOrEqual(width);
    await page.screenshot({ path: join(SHOTS, `logs-search-${width}.png`), animations: 'disabled', fullPage: true });

    await search('Sahara Nights');
    await expect.poll(records, W).toEqual(['booking 1043']);
    const id = await page.locator('tr[data-delivery]').first().getAttribute('data-delivery');
    await search(id!);
    await expect.poll(() => page.locator('tr[data-delivery]').evaluateAll((rows) =>
      rows.map((r) => r.getAttribute('data-delivery'))), W).toEqual([id]);

    await search('zoe@nowhere.test');
    await page.getByText('No deliveries match these filters').waitFor();
    await search('ab');
    await page.getByRole('alert')
      .getByText(/^Search for an e-mail, name or trip of 3 to 200 characters/).waitFor();
  });
});
