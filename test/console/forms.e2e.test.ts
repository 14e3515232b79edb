// The console's forms and the features behind them, in real Chromium against a real Waypost and receiver: every
// invalid field reported at once with the server's limits, a rate limit of 0 in words, leaving an edited form asks
// first, the new-key dialog asks whether the secret was copied and gives a working curl line, keys edited after
// creation with a link to their usage, disabling a webhook confirmed (with its pending count) and re-enabling it
// offering to redeliver what was cancelled, and log rows naming their record, searchable, deleted webhooks kept.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Dialog, Locator, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { issueSetupToken, setupLink } from '../../src/admin/setup.js';
import { buildConsole, launchChromium } from './browser.js';
import { startReceiver, type Receiver } from './receiver.js';
import { booking } from '../webhooks/engine/fixtures.js';
import { deleteWebhook } from '../../src/webhooks/manage.js';
import { freePort } from '../helpers/services.js';

const W = { timeout: 15_000, interval: 100 };
const text = (l: Locator) => async () => (await l.textContent()) ?? '';

describe.runIf(await hasChromium())('console forms in Chromium', () => {
  let wp: Waypost;
  let base: string;
  let receiver: Receiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  // Native "leave this page?" prompts: answered by the test, and recorded so it can tell whether one was asked.
  let prompts: string[] = [];
  let answer = false;

  beforeAll(async () => {
    buildConsole();
    receiver = await startReceiver();
    receiver.respondWith(500);
    // A failed first attempt waits an hour for its retry: the delivery stays pending for the disable dialog.
    // The base URL is the real one: the new-key dialog's curl line is run as printed.
    const port = await freePort();
    wp = await testWaypost({ config: { port, host: '127.0.0.1', baseUrl: `http://127.0.0.1:${port}`,
      retryDelaysMs: [3_600_000], allowPrivateTargets: true, pollMs: 100 } });
    base = (await wp.serve('all')).url!;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: base });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    page.on('dialog', (d: Dialog) => {
      prompts.push(d.message());
      void (answer ? d.accept() : d.dismiss());
    });
  }, 120_000);

  afterEach(async () => {
    while (await page?.locator('dialog[open]').count()) await page.keyboard.press('Escape');
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await wp?.close();
    await receiver?.close();
  });

  it('reports every invalid setup field at once, then creates the admin', async () => {
    const token = await issueSetupToken(wp.core);
    await page.goto(setupLink(wp.core, token!).replace(wp.config.baseUrl, base));
    await page.getByLabel('E-mail').fill('not-an-address');
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByLabel('Repeat password').fill('shorter');
    await page.getByRole('button', { name: 'Create admin and sign in' }).click();
    await expect.poll(() => page.locator('.field-invalid').count(), W).toBe(3);
    await page.getByText('Enter a valid e-mail address, like ops@example.com.').waitFor();
    await page.getByText('Use at least 10 characters.').waitFor();
    await page.getByText('The two passwords do not match.').waitFor();
    await page.getByLabel('E-mail').fill('ops@example.com');
    await page.getByLabel('Password', { exact: true }).fill('forms e2e password');
    await page.getByLabel('Repeat password').fill('forms e2e password');
    await page.getByRole('button', { name: 'Create admin and sign in' }).click();
    await page.getByRole('heading', { name: 'Webhooks & API' }).waitFor();
  });

  it('marks every invalid webhook field at once, keeps the name within the server\'s 100 characters, and asks '
    + 'before discarding edits', async () => {
    await page.getByRole('link', { name: 'Add webhook' }).first().click();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await expect.poll(() => page.locator('.field-invalid').count(), W).toBe(3);
    await page.getByText('Fix the 3 fields marked below.').waitFor();
    await page.getByLabel('Name').fill('x'.repeat(150));
    expect((await page.getByLabel('Name').inputValue()).length).toBe(100);

    // Leaving with edits: asked; "stay" keeps the form as it was, "leave" goes.
    prompts = [];
    answer = false;
    await page.getByRole('link', { name: 'API Keys' }).click();
    expect(prompts).toEqual(['You have unsaved changes. Leave this page and discard them?']);
    expect(page.url()).toMatch(/#\/webhooks\/new$/);
    expect((await page.getByLabel('Name').inputValue()).length).toBe(100);
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    expect(prompts).toHaveLength(2);
    expect(page.url()).toMatch(/#\/webhooks\/new$/);
    answer = true;
    await page.getByRole('link', { name: 'All webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
    expect(prompts).toHaveLength(3);

    // A saved form leaves without asking.
    prompts = [];
    await page.getByRole('link', { name: 'Add webhook' }).first().click();
    await page.getByLabel('Name').fill('Bookings to CRM');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel(/Booking Created/).check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('heading', { name: 'Bookings to CRM' }).waitFor();
    await page.getByRole('link', { name: 'All webhooks' }).click();
    await page.locator('tr[data-webhook="Bookings to CRM"]').waitFor();
    expect(prompts).toEqual([]);
  });

  it('confirms a disable with the pending count, and on re-enable redelivers what it cancelled, once', async () => {
    await wp.put('bookings', 1042, booking());
    await expect.poll(() => receiver.requests.length, W).toBe(1); // failed; the retry is an hour away
    const row = page.locator('tr[data-webhook="Bookings to CRM"]');
    await row.getByRole('switch').click({ force: true });
    const confirm = page.getByRole('dialog', { name: 'Disable “Bookings to CRM”?' });
    await expect.poll(text(confirm), W).toContain('1 delivery is still waiting');
    await confirm.getByRole('button', { name: 'Cancel', exact: true }).click();
    expect(await row.getByRole('switch').isChecked()).toBe(true);
    await row.getByRole('switch').click({ force: true });
    await confirm.getByRole('button', { name: 'Disable and cancel 1 delivery' }).click();
    await expect.poll(text(row), W).toContain('Disabled');

    receiver.respondWith(200);
    await row.getByRole('switch').click({ force: true });
    const offer = page.getByRole('dialog', { name: 'Redeliver what was missed?' });
    await expect.poll(text(offer), W).toContain('1 delivery to “Bookings to CRM” failed or was cancelled');
    await offer.getByRole('button', { name: 'Redeliver now' }).click();
    // The offer follows the recover job to the end: a progress bar and a status line.
    await expect.poll(text(offer.getByTestId('recover-status')), W).toContain('Done: queued 1 redelivery');
    expect(await offer.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('1');
    await offer.getByRole('button', { name: 'Done', exact: true }).click();
    await expect.poll(() => receiver.requests.length, W).toBe(2);
    const [first, second] = receiver.requests.map((r) => JSON.parse(r.body) as { id: string });
    expect(second.id).toBe(first.id); // the same event, redelivered
    await expect.poll(text(row), W).toContain('Succeeded · 200');
    expect(receiver.requests).toHaveLength(2);
  });

  it('names each delivery\'s record, searches by record, event and delivery id, and keeps a deleted webhook in the '
    + 'filter', async () => {
    await page.getByRole('link', { name: 'Logs', exact: true }).click();
    const rows = page.locator('tr[data-delivery]');
    await expect.poll(() => rows.count(), W).toBe(2);
    await expect.poll(text(rows.first().getByTestId('record')), W).toBe('booking 1042');
    await wp.put('bookings', 2001, booking());
    await expect.poll(() => rows.count(), W).toBe(3);

    const search = page.getByLabel('Search deliveries');
    await search.fill('booking 1042');
    await search.press('Enter');
    await expect.poll(() => rows.count(), W).toBe(2);
    const deliveryId = (await rows.first().getAttribute('data-delivery'))!;
    await search.fill(deliveryId);
    await search.press('Enter');
    await expect.poll(() => rows.count(), W).toBe(1);
    await search.fill('2001');
    await search.press('Enter');
    await expect.poll(text(rows.first().getByTestId('record')), W).toBe('booking 2001');
    await search.fill('no such traveller');
    await search.press('Enter');
    await page.getByText('No deliveries match these filters').waitFor();
    await search.fill('ab');
    await search.press('Enter');
    await page.getByText(/Search for an e-mail, name or trip of 3 to 200 characters, or an id/).waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();

    // Deleting the webhook keeps it in the Logs filter, marked deleted, with its deliveries.
    const id = (await (await page.request.get(`${base}/admin/api/webhooks`)).json() as Array<{ id: string }>)[0].id;
    await deleteWebhook(wp.core, id);
    await page.reload();
    await page.getByLabel('Webhook', { exact: true }).selectOption({ label: 'Bookings to CRM (deleted)' });
    await expect.poll(() => rows.count(), W).toBe(3);
  });

  it('says a rate limit of 0 in words, asks whether the secret was copied, and gives a curl line that works',
    async () => {
    await page.getByRole('link', { name: 'API Keys' }).click();
    await page.getByRole('button', { name: 'Add key' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add API key' });
    await dialog.getByLabel('Rate limit (optional)').fill('0');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => dialog.locator('.field-invalid').count(), W).toBe(3); // label, permissions, rate limit
    await dialog.getByText(/A key needs at least 1 request per window/).waitFor();
    await expect.poll(text(dialog), W).toMatch(/server default, \d+ per minute/);
    await dialog.getByLabel('Label').fill('Website');
    await dialog.getByLabel('Bookings: list').check();
    await dialog.getByLabel('Rate limit (optional)').fill('');
    await dialog.getByRole('button', { name: 'Create key' }).click();

    const shown = page.getByRole('dialog', { name: 'Your new API key' });
    const curl = (await shown.getByTestId('new-curl').textContent())!;
    const curlLine = new RegExp(String.raw`^curl -s -H 'Access-Token: wpk_\w+' -H 'Access-Secret: wps_[\w-]+' `
      + String.raw`'http:\/\/127\.0\.0\.1:\d+\/.+\/bookings\?perpage=5'$`);
    expect(curl).toMatch(curlLine);
    // Asynchronously: the server answering it runs in this process.
    const { stdout: out } = await promisify(execFile)('sh', ['-c', curl], { encoding: 'utf8', timeout: 10_000 });
    expect(JSON.parse(out)).toBeInstanceOf(Array); // the bookings list, as pasted into a shell
    await page.keyboard.press('Escape');
    await shown.getByText('Did you copy the secret?').waitFor();
    await shown.getByRole('button', { name: 'Go back and copy it' }).click();
    await shown.getByRole('button', { name: 'I have saved the secret' }).click();
    await shown.getByRole('button', { name: 'Yes, I copied it: close' }).click();
    await expect.poll(() => page.locator('dialog[open]').count(), W).toBe(0);
  });

  it('edits a key\'s label, permissions and rate limit, and links to its usage', async () => {
    const row = page.locator('tr[data-key="Website"]');
    await expect.poll(text(row), W).toContain('(default)');
    await row.getByRole('button', { name: 'Edit Website' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit “Website”' });
    await dialog.getByLabel('Label').fill('Public website');
    await dialog.getByLabel('Trips: list').check();
    await dialog.getByLabel('Rate limit (optional)').fill('30');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    const edited = page.locator('tr[data-key="Public website"]');
    await expect.poll(text(edited), W).toContain('30 requests / minute');
    await expect.poll(text(edited), W).toContain('Trips (list)');
    const key = (await wp.core.db.selectFrom('api_keys').selectAll().execute())[0];
    expect({ label: key.label, rate_limit: key.rate_limit, permissions: JSON.parse(key.permissions) })
      .toEqual({ label: 'Public website', rate_limit: 30, permissions: ['bookings.list', 'trips.list'] });

    await edited.getByRole('link', { name: 'Usage of Public website' }).click();
    await page.getByText('Showing Public website only.').waitFor();
    await expect.poll(() => page.locator('tr[data-usage]').count(), W).toBe(1);
    expect(page.url()).toContain(`key=${key.id}`);
  });

  it('reports both invalid settings at once and asks before leaving them unsaved', async () => {
    await page.getByRole('link', { name: 'Alerts & retention' }).click();
    await page.getByLabel('Alert e-mail address').fill('nope');
    await page.getByLabel('Keep delivery logs for (days)').fill('0');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.locator('.field-invalid').count(), W).toBe(2);
    prompts = [];
    answer = false;
    await page.getByRole('link', { name: 'Webhooks & API' }).click();
    expect(prompts).toHaveLength(1);
    expect(await page.getByLabel('Alert e-mail address').inputValue()).toBe('nope');
    answer = true;
  });
});
