// The console end to end in real Chromium against a real Waypost (temporary SQLite file, worker with a fast retry
// schedule) and a real local receiver: setup and sign-in, a webhook with a test send, the Logs tab, an API key used
// over real HTTP then disabled (401), a failing webhook turning red after five attempts, re-enabling it, settings, a
// receiver's Retry-After and 410 Gone in the delivery drawer.
// Saves screenshots of each tab: into docs/screenshots/ (the README's) with UPDATE_SCREENSHOTS=1, else a temp dir.
import { createHmac } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { issueSetupToken, setupLink } from '../../src/admin/setup.js';
import { PACKAGE_ROOT } from '../../src/admin/console.js';
import { createApiKey } from '../../src/api/keys.js';
import { createWebhook } from '../../src/webhooks/manage.js';
import { buildConsole, launchChromium } from './browser.js';
import { startReceiver, type Receiver } from './receiver.js';

const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(PACKAGE_ROOT, 'docs', 'screenshots')
  : join(tmpdir(), 'waypost-screenshots');
const EMAIL = 'ops@example.com';
const PASSWORD = 'console e2e password';
// The console polls every 2 s and deliveries retry every 50 ms: waits are generous, never fixed sleeps.
const W = { timeout: 15_000, interval: 100 };
const HIDE_TOASTS = '.toasts { display: none !important; }';
const text = (l: Locator) => async () => (await l.textContent()) ?? '';

describe.runIf(await hasChromium())('admin console in Chromium', () => {
  let wp: Waypost;
  let base: string;
  let receiver: Receiver;
  let failing: Receiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let webhookSecret = '';

  beforeAll(async () => {
    buildConsole();
    receiver = await startReceiver();
    failing = await startReceiver();
    failing.respondWith(500);
    wp = await testWaypost({ config: { port: 0, host: '127.0.0.1', retryDelaysMs: [50, 50, 50, 50],
      allowPrivateTargets: true, pollMs: 100 } });
    const { url } = await wp.serve('all');
    base = url!;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: base });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    mkdirSync(SHOTS, { recursive: true });
  }, 120_000);

  // One failed step should not leave a dialog open over the next test's page.
  afterEach(async () => {
    while (await page?.locator('dialog[open]').count()) await page.keyboard.press('Escape');
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await wp?.close();
    await receiver?.close();
    await failing?.close();
  });

  it('serves the console at /admin/ (and redirects /admin) with no external assets', async () => {
    const res = await fetch(`${base}/admin`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/admin/');
    const html = await (await fetch(`${base}/admin/`)).text();
    expect(html).toContain('<div id="root">');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//); // no CDN: every asset comes from /admin/
  });

  it('creates the first admin through the one-time setup link, then signs out and back in', async () => {
    const token = await issueSetupToken(wp.core);
    const link = setupLink(wp.core, token!).replace(wp.config.baseUrl, base);
    await page.goto(link);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Repeat password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create admin and sign in' }).click();
    await page.getByRole('heading', { name: 'Webhooks & API' }).waitFor();
    expect(page.url()).toMatch(/#\/webhooks$/);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(text(page.getByRole('alert')), W).toBe('The e-mail or password is incorrect.');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Webhooks & API' }).waitFor();
    const cookie = (await context.cookies()).find((c) => c.name === 'waypost_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin' });
  });

  it('adds a webhook with inline validation, reveals its secret, and sends a test the receiver answers', async () => {
    await page.getByRole('link', { name: 'Add webhook' }).first().click();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByText('Give the webhook a name.').waitFor();
    await page.getByLabel('Name').fill('CRM sync');
    await page.getByLabel('Endpoint URL').fill('not a url');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByText('Enter a valid URL starting with https:// (or http://).').waitFor();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByText('Choose at least one event.').waitFor();
    // The server has the last word: a URL with credentials passes the browser's check but not Waypost's.
    await page.getByLabel('Endpoint URL').fill(receiver.url.replace('http://', 'http://user:pw@'));
    await page.getByLabel(/Enquiry Created/).check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const urlError = page.locator('.field-invalid .field-error');
    await urlError.waitFor();
    expect(await urlError.textContent()).toMatch(/credential|user/i);

    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel(/Booking Created/).check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('heading', { name: 'CRM sync' }).waitFor();
    webhookSecret = (await page.getByTestId('webhook-secret').textContent())!;
    expect(webhookSecret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Hide' }).click();
    await expect.poll(text(page.getByTestId('webhook-secret')), W).not.toContain(webhookSecret);
    await page.getByRole('button', { name: 'Reveal' }).click();
    await expect.poll(text(page.getByTestId('webhook-secret')), W).toBe(webhookSecret);

    await page.getByLabel('Event', { exact: true }).selectOption('enquiry.created');
    await page.getByRole('button', { name: 'Send test' }).click();
    const result = page.getByTestId('test-result');
    await expect.poll(text(result), W).toContain('Delivered');
    await expect.poll(text(result), W).toContain('HTTP 200');
    await expect.poll(text(result), W).toContain('"received": true');
    const sent = receiver.requests.at(-1)!;
    expect(sent.headers['x-waypost-event']).toBe('enquiry.created');
    const expected = `sha256=${createHmac('sha256', webhookSecret).update(sent.body).digest('hex')}`;
    expect(sent.headers['x-waypost-signature']).toBe(expected); // signed with the secret the console showed
    await page.evaluate(() => window.scrollTo(0, 0)); // the sticky top bar belongs at the top of a full-page shot
    await page.screenshot({ style: HIDE_TOASTS, animations: 'disabled', path: join(SHOTS, 'webhook-edit.png'),
      fullPage: true });
  });

  it('shows the delivery and its attempt in Logs, live, and redelivers it', async () => {
    // A real event too, so the log holds more than the test.
    await wp.put('enquiries', 501, { full_name: 'Ada Lovelace', email: 'ada@example.com',
      message: 'Is the Annapurna trek open in May?' });
    await page.getByRole('link', { name: 'Logs', exact: true }).click();
    const rows = page.locator('tr[data-delivery]');
    await expect.poll(() => rows.count(), W).toBe(2);
    await expect.poll(text(rows.first()), W).toContain('Succeeded · 200'); // newest first: the real event
    await expect.poll(text(rows.nth(1)), W).toContain('Test');

    await rows.nth(1).getByRole('button', { name: /Details/ }).click();
    const panel = page.getByRole('dialog', { name: 'Delivery details' });
    await expect.poll(() => panel.getByTestId('attempt').count(), W).toBe(1);
    await expect.poll(text(panel), W).toMatch(/X-Waypost-Signature/i);
    await expect.poll(text(panel), W).toContain('HTTP 200');
    await expect.poll(text(panel), W).toContain('"received": true');
    const before = receiver.requests.length;
    await panel.getByRole('button', { name: 'Redeliver' }).click();
    await expect.poll(text(panel), W).toContain('Redelivery of');
    await expect.poll(() => receiver.requests.length, W).toBe(before + 1);
    await page.keyboard.press('Escape');
    await expect.poll(() => rows.count(), W).toBe(3);

    await page.getByLabel('Status', { exact: true }).selectOption('succeeded');
    await expect.poll(() => rows.count(), W).toBe(3);
    await page.getByLabel('Status', { exact: true }).selectOption('failed');
    await page.getByText('No deliveries match these filters').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows.count(), W).toBe(3);
  });

  it('creates an API key, uses it over real HTTP, disables it (401) and enables it again', async () => {
    await createApiKey(wp.core,
      { label: 'Analytics export', permissions: ['bookings.list', 'bookings.read', 'payments.list', 'payments.read'] });
    await page.getByRole('link', { name: 'API Keys' }).click();
    await page.getByRole('button', { name: 'Add key' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add API key' });
    await dialog.getByLabel('Label').fill('Partner portal');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await dialog.getByText('Choose at least one permission.').waitFor();
    await dialog.getByLabel('Bookings: list').check();
    await dialog.getByLabel('Trips: read').check();
    await dialog.getByLabel('Rate limit (optional)').fill('120');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('dialog', { name: 'Your new API key' });
    await expect.poll(text(shown), W).toContain('shown only this once');
    const key = (await shown.getByTestId('new-key').textContent())!;
    const secret = (await shown.getByTestId('new-secret').textContent())!;
    await shown.getByRole('button', { name: 'I have saved the secret' }).click();
    await shown.getByRole('button', { name: 'Yes, I copied it: close' }).click(); // the secret was not copied: asked

    const call = () => fetch(`${base}/rest/waypost/api/v1/test`,
      { headers: { 'Access-Token': key, 'Access-Secret': secret } });
    const ok = await call();
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ ok: true, permissions: ['bookings.list', 'trips.read'] });

    const row = page.locator('tr[data-key="Partner portal"]');
    await expect.poll(text(row), W).toContain('Bookings (list) · Trips (read)');
    await expect.poll(text(row), W).toContain('120 requests / minute');
    await row.getByRole('button', { name: 'Disable Partner portal' }).click();
    await expect.poll(text(row), W).toContain('Disabled');
    expect((await call()).status).toBe(401);
    await row.getByRole('button', { name: 'Enable Partner portal' }).click();
    await expect.poll(text(row), W).toContain('Active');
    expect((await call()).status).toBe(200);
    await page.screenshot({ style: HIDE_TOASTS, animations: 'disabled', path: join(SHOTS, 'api-keys.png') });

    // A permission the key lacks is refused, and shows up in the key's usage as a 4xx.
    const denied = await fetch(`${base}/rest/waypost/api/v1/customers`,
      { headers: { 'Access-Token': key, 'Access-Secret': secret } });
    expect(denied.status).toBe(401);
    await page.getByRole('link', { name: 'Logs', exact: true }).click();
    await page.getByRole('button', { name: 'API usage' }).click();
    const usage = page.locator('tr[data-usage="Partner portal"]');
    await expect.poll(async () => Number(await usage.getByTestId('usage-requests').textContent()), W)
      .toBeGreaterThanOrEqual(3);
    await expect.poll(async () => Number(await usage.getByTestId('usage-4xx').textContent()), W)
      .toBeGreaterThanOrEqual(1);
  });

  it('turns a failing webhook red after five attempts, without a reload, and re-enables it after a fix', async () => {
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('link', { name: 'Add webhook' }).first().click();
    await page.getByLabel('Name').fill('Legacy ERP');
    await page.getByLabel('Endpoint URL').fill(failing.url);
    await page.getByLabel(/Enquiry Created/).check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('heading', { name: 'Legacy ERP' }).waitFor();
    await page.getByRole('link', { name: 'All webhooks' }).click();
    const row = page.locator('tr[data-webhook="Legacy ERP"]');
    await expect.poll(text(row), W).toContain('Active');

    await wp.put('enquiries', 502, { full_name: 'Grace Hopper', email: 'grace@example.com',
      message: 'Group discount for 8?' });
    await expect.poll(text(row), W).toContain('Auto-disabled');
    await expect.poll(text(row.getByTestId('disabled-reason')), W).not.toBe('');
    expect(failing.requests).toHaveLength(5);
    expect(await row.getByRole('switch').isChecked()).toBe(false);
    await expect.poll(text(page.locator('tr[data-webhook="CRM sync"]')), W).toContain('Succeeded · 200');
    await page.screenshot({ style: HIDE_TOASTS, animations: 'disabled', path: join(SHOTS, 'webhooks.png') });

    failing.respondWith(200);
    await row.getByRole('button', { name: 'Re-enable' }).click();
    // The enquiry's delivery failed while the webhook was failing: re-enabling offers to redeliver it. Closed here
    // (forms.e2e.test.ts takes the offer); left to open on its own, it covered the next test's first click.
    const offer = page.getByRole('dialog', { name: 'Redeliver what was missed?' });
    await expect.poll(text(offer), W).toContain('1 delivery to “Legacy ERP” failed or was cancelled');
    await offer.getByRole('button', { name: 'Cancel', exact: true }).click();
    await offer.waitFor({ state: 'hidden' });
    await expect.poll(text(row), W).toContain('Active');
    await expect.poll(text(row), W).not.toContain('Auto-disabled');
    const hook = (await (await page.request.get(`${base}/admin/api/webhooks`))
      .json() as Array<{ name: string; active: boolean }>).find((w) => w.name === 'Legacy ERP');
    expect(hook?.active).toBe(true);
  });

  it('lists the failed delivery with its five attempts and the alert e-mails', async () => {
    await page.getByRole('link', { name: 'Logs', exact: true }).click();
    await page.getByLabel('Webhook', { exact: true }).selectOption({ label: 'Legacy ERP' });
    const rows = page.locator('tr[data-delivery]');
    await expect.poll(() => rows.count(), W).toBe(1);
    await expect.poll(text(rows.first()), W).toContain('Failed · 500');
    await rows.first().click();
    const panel = page.getByRole('dialog', { name: 'Delivery details' });
    await expect.poll(() => panel.getByTestId('attempt').count(), W).toBe(5);
    await expect.poll(text(panel), W).toContain('receiver is down for maintenance');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    // the test, its redelivery, 501 and 502 to CRM sync, 502 to Legacy ERP
    await expect.poll(() => rows.count(), W).toBe(5);
    await page.screenshot({ style: HIDE_TOASTS, animations: 'disabled', path: join(SHOTS, 'logs.png') });
    await rows.filter({ hasText: 'Legacy ERP' }).click(); // the failed one: five attempts, each with the receiver's 500
    await expect.poll(() => page.getByRole('dialog', { name: 'Delivery details' }).getByTestId('attempt').count(), W)
      .toBe(5);
    await page.screenshot({ style: HIDE_TOASTS, animations: 'disabled', path: join(SHOTS, 'logs-detail.png') });
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'E-mail alerts' }).click();
    // warnings after attempts 3 and 4, critical after 5
    await expect.poll(() => page.locator('.alert-item').count(), W).toBe(3);
    await expect.poll(text(page.locator('.alert-item').first()), W).toContain('Critical');
  });

  it('saves the alert e-mail and log retention, with inline validation', async () => {
    await page.getByRole('link', { name: 'Alerts & retention' }).click();
    await page.getByText(`Currently ${EMAIL}`).waitFor();
    await page.getByLabel('Alert e-mail address').fill('not an address');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText(/Enter a valid e-mail address/).waitFor();
    await page.getByLabel('Alert e-mail address').fill('alerts@example.com');
    await page.getByLabel('Keep delivery logs for (days)').fill('90');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Currently alerts@example.com').waitFor();
    const rows = await wp.core.db.selectFrom('settings').selectAll()
      .where('name', 'in', ['alert_email', 'log_retention_days']).orderBy('name').execute();
    expect(rows).toEqual([{ name: 'alert_email', value: 'alerts@example.com' },
      { name: 'log_retention_days', value: '90' }]);
    await page.screenshot({ style: HIDE_TOASTS, animations: 'disabled', path: join(SHOTS, 'settings.png') });
  });

  it('is usable from the keyboard: tabs reach the navigation with a visible focus ring', async () => {
    await page.goto(`${base}/admin/`); // a fresh load: the session cookie brings us straight to the webhooks
    await page.getByRole('heading', { name: 'Webhooks & API' }).waitFor();
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate(() => document.activeElement?.textContent === 'API Keys')) break;
    }
    const focused = await page.evaluate(() => ({ text: document.activeElement?.textContent,
      outline: getComputedStyle(document.activeElement!).outlineStyle }));
    expect(focused).toEqual({ text: 'API Keys', outline: 'solid' });
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
  });

  it('gives every control on every page an accessible name', async () => {
    const unnamed = async () => page.evaluate(
      () => [...document.querySelectorAll('input, select, textarea, button, a[href]')]
      .filter((el) => {
        const e = el as HTMLInputElement;
        const named = (e.labels?.length ?? 0) > 0 || e.getAttribute('aria-label') || e.getAttribute('aria-labelledby')
          || e.textContent?.trim();
        return !named && getComputedStyle(e).display !== 'none';
      })
      .map((el) => el.outerHTML.slice(0, 120)));
    for (const hash of ['#/webhooks', '#/keys', '#/logs', '#/logs?view=alerts', '#/logs?view=usage', '#/settings']) {
      await page.goto(`${base}/admin/${hash}`);
      await page.locator('h1').waitFor();
      await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' }).catch(() => {});
      expect({ hash, unnamed: await unnamed() }).toEqual({ hash, unnamed: [] });
    }
    await page.getByRole('link', { name: 'Webhooks & API' }).click();
    await page.getByRole('link', { name: 'CRM sync' }).click();
    await page.getByRole('heading', { name: 'Signing secret' }).waitFor();
    expect(await unnamed()).toEqual([]);
  });

  it('shows receiver signals in the delivery drawer: a Retry-After postponing, a 410 Gone disabling', async () => {
    const gone = await startReceiver();
    try {
      gone.respondWith(429);
      const hook = await createWebhook(wp.core, { name: 'Retired CRM', url: gone.url, events: ['enquiry.created'] });
      const deliveryOf = (status: 'pending' | 'failed') => wp.core.db.selectFrom('deliveries').select('id')
        .where('webhook_id', '=', hook.id).where('status', '=', status).executeTakeFirst();
      await wp.put('enquiries', 503, { full_name: 'Alan Turing', email: 'alan@example.com', message: 'Still there?' });
      await expect.poll(() => gone.requests.length, W).toBe(1);
      const postponed = (await deliveryOf('pending'))!.id; // the schedule's 50 ms became 120 s
      gone.respondWith(410);
      await wp.put('enquiries', 504, { full_name: 'Alan Turing', email: 'alan@example.com', message: 'Hello?' });
      await expect.poll(async () => (await deliveryOf('failed'))?.id, W).toBeDefined();

      const panel = page.getByRole('dialog', { name: 'Delivery details' });
      const signal = panel.getByTestId('attempt-signal');
      await page.goto(`${base}/admin/#/logs?delivery=${(await deliveryOf('failed'))!.id}`);
      await expect.poll(text(signal), W).toBe('Receiver signal: webhook disabled: 410 Gone');
      await page.screenshot({ style: HIDE_TOASTS, animations: 'disabled', path: join(SHOTS, 'logs-signal-gone.png') });
      await page.goto(`${base}/admin/#/logs?delivery=${postponed}`);
      await expect.poll(text(signal), W).toBe('Receiver signal: postponed by Retry-After: 120 s');
      await expect.poll(text(panel), W).toContain('webhook disabled: the receiver answered 410 Gone'); // cancelled
      await page.screenshot({ style: HIDE_TOASTS, animations: 'disabled', path: join(SHOTS, 'logs-signal-retry.png') });
      await page.keyboard.press('Escape');
      await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
      const row = page.locator('tr[data-webhook="Retired CRM"]');
      await expect.poll(text(row.getByTestId('disabled-reason')), W).toContain('the receiver answered 410 Gone');
      expect(gone.requests).toHaveLength(2); // nothing more: no retry of either
    } finally {
      await gone.close();
    }
  });

  it('shows the sign-in page, without a reload, when the session ends elsewhere', async () => {
    await page.goto(`${base}/admin/#/webhooks`);
    await page.getByRole('heading', { name: 'Webhooks & API' }).waitFor();
    await wp.core.db.deleteFrom('admin_sessions').execute(); // e.g. `waypost admin password` signed everyone out
    await page.getByRole('heading', { name: 'Sign in' }).waitFor(); // the next live refresh gets 401
    const res = await page.request.get(`${base}/admin/api/webhooks`);
    expect(res.status()).toBe(401);
  });

  it('refuses a private address inline when private targets are not allowed (the production default)', async () => {
    const strict = await testWaypost({ config: { port: 0, host: '127.0.0.1', allowPrivateTargets: false } });
    const strictContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const { url } = await strict.serve('api');
      const strictPage = await strictContext.newPage();
      strictContext.setDefaultTimeout(15_000);
      await strictPage.goto(setupLink(strict.core, (await issueSetupToken(strict.core))!)
        .replace(strict.config.baseUrl, url!));
      await strictPage.getByLabel('E-mail').fill(EMAIL);
      await strictPage.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await strictPage.getByLabel('Repeat password').fill(PASSWORD);
      await strictPage.getByRole('button', { name: 'Create admin and sign in' }).click();
      await strictPage.getByRole('link', { name: 'Add webhook' }).first().click();
      await strictPage.getByLabel('Name').fill('Internal');
      await strictPage.getByLabel('Endpoint URL').fill('http://10.1.2.3/hooks');
      await strictPage.getByLabel(/Booking Created/).check();
      await strictPage.getByRole('button', { name: 'Add webhook' }).click();
      const urlError = strictPage.locator('.field-invalid .field-error');
      await urlError.waitFor();
      expect(await urlError.textContent()).toMatch(/private|internal|not allowed|external/i);
      expect(await strictPage.getByLabel('Endpoint URL').getAttribute('aria-invalid')).toBe('true');
    } finally {
      await strictContext.close();
      await strict.close();
    }
  });
});
