// "Recover…" in the console, in real Chromium: the row action asks for a time and which statuses, then follows the
// job with an accessible progress bar (role=progressbar: indeterminate until the job has counted its total, then
// aria-valuenow) and a live status line until done; focus moves to that line when the form goes and back to the
// row's button when the dialog closes. Run again, it finds nothing left; the receiver gets each recovered delivery
// once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import type { Waypost } from '../../src/sdk.js';
import { createWebhook } from '../../src/webhooks/manage.js';
import { seedFailed } from '../webhooks/recover/fixtures.js';
import { signedInConsole } from './browser.js';
import { startReceiver, type Receiver } from './receiver.js';

const W = { timeout: 30_000, interval: 100 };
const N = 1_200;

describe.runIf(await hasChromium())('recover in the console, in Chromium', () => {
  let wp: Waypost;
  let browser: Browser;
  let page: Page;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    ({ wp, browser, page } = await signedInConsole({ viewport: { width: 1280, height: 900 },
      password: 'recover e2e password' }));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await wp?.close();
    await receiver?.close();
  });

  it('recovers from the row action with a progress bar until done, once', { timeout: 120_000 }, async () => {
    const hook = await createWebhook(wp.core, { name: 'CRM', url: receiver.url, events: ['customer.created'] });
    const seeded = await seedFailed(wp, hook.id, N, new Date(Date.now() - 3_600_000).toISOString());
    await page.goto('/admin/#/webhooks');
    const action = page.locator('tr[data-webhook="CRM"]').getByRole('button', { name: 'Recover deliveries to CRM…' });
    await action.click();
    const dialog = page.getByRole('dialog', { name: 'Recover deliveries to “CRM”' });
    await dialog.waitFor();
    // Opens on its first field, the time, preset to a day ago; both statuses chosen.
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).type)).toBe('datetime-local');
    expect(await dialog.getByRole('checkbox', { name: 'Failed' }).isChecked()).toBe(true);
    expect(await dialog.getByRole('checkbox', { name: 'Cancelled' }).isChecked()).toBe(true);
    await dialog.getByRole('checkbox', { name: 'Failed' }).uncheck();
    await dialog.getByRole('checkbox', { name: 'Cancelled' }).uncheck();
    expect(await dialog.getByRole('checkbox', { name: 'Events missed while disabled' }).isChecked()).toBe(true);
    await dialog.getByRole('checkbox', { name: 'Events missed while disabled' }).uncheck();
    await dialog.getByRole('button', { name: 'Redeliver now' }).click();
    await dialog.getByRole('alert').getByText('Choose failed, cancelled or missed events.').waitFor();
    await dialog.getByRole('checkbox', { name: 'Failed' }).check();
    const started = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/recover'));
    await dialog.getByRole('button', { name: 'Redeliver now' }).click();

    const bar = dialog.getByRole('progressbar', { name: 'Redeliveries queued' });
    await bar.waitFor();
    // The POST answers before the job has counted its total (the bar is indeterminate until the next poll says it
    // has: reading the bar for that raced the poll on a busy machine, so the answer is what is checked).
    expect((await (await started).json() as { total: number | null }).total).toBeNull();
    await expect.poll(() => bar.getAttribute('aria-valuemax'), W).toBe(String(N));
    const status = dialog.getByTestId('recover-status');
    expect(await status.evaluate((el) => el === document.activeElement)).toBe(true); // focus followed the content
    await expect.poll(() => status.textContent(), W).toContain(`Done: queued ${N} redeliveries`);
    expect(await bar.getAttribute('aria-valuenow')).toBe(String(N));
    await dialog.getByRole('button', { name: 'Done', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await action.evaluate((el) => el === document.activeElement)).toBe(true);

    // Again: nothing left, nothing sent twice.
    await action.click();
    await dialog.getByRole('button', { name: 'Redeliver now' }).click();
    await expect.poll(() => status.textContent(), W).toContain('Nothing left to redeliver');
    await page.keyboard.press('Escape');
    await expect.poll(() => receiver.requests.length, { timeout: 90_000, interval: 200 }).toBe(N);
    const ids = receiver.requests.map((r) => r.headers['x-waypost-delivery']);
    expect(new Set(ids).size).toBe(N);
    const redelivered = await wp.core.db.selectFrom('deliveries').select('redelivery_of')
      .where('redelivery_of', 'is not', null).execute();
    expect(redelivered.map((r) => r.redelivery_of).sort()).toEqual([...seeded].sort());
  });
});
