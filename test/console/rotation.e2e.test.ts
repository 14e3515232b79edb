// Secret rotation in the console, in real Chromium: "Rotate secret…" with a grace choice shows the new secret and
// when the previous one stops signing; "Regenerate now…" (a leaked secret) ends the previous one at once.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { freePort, hasChromium } from '../helpers/services.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { issueSetupToken, setupLink } from '../../src/admin/setup.js';
import { createWebhook, getWebhook, revealSecret } from '../../src/webhooks/manage.js';
import { buildConsole, launchChromium } from './browser.js';

const SHOT = join(tmpdir(), 'waypost-screenshots', 'secret-rotation.png');
const W = { timeout: 15_000, interval: 100 };

describe.runIf(await hasChromium())('secret rotation in the console, in Chromium', () => {
  let wp: Waypost;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    buildConsole();
    const port = await freePort();
    wp = await testWaypost({ config: { port, host: '127.0.0.1', baseUrl: `http://127.0.0.1:${port}` } });
    const base = (await wp.serve('all')).url!;
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: base });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    const token = await issueSetupToken(wp.core);
    await page.goto(setupLink(wp.core, token!).replace(wp.config.baseUrl, base));
    await page.getByLabel('E-mail').fill('ops@example.com');
    await page.getByLabel('Password', { exact: true }).fill('rotation e2e password');
    await page.getByLabel('Repeat password').fill('rotation e2e password');
    await page.getByRole('button', { name: 'Create admin and sign in' }).click();
    await page.getByRole('heading', { name: 'Webhooks & API' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await wp?.close();
  });

  it('rotates with the chosen grace period, shows its end, and regenerate now ends it', async () => {
    const hook = await createWebhook(wp.core, { name: 'CRM', url: 'https://crm.example.com/in',
      events: ['booking.created'] });
    await page.goto(`/admin/#/webhooks/${hook.id}`);
    await page.getByRole('heading', { name: 'CRM' }).waitFor();
    expect(await page.getByTestId('previous-secret-expiry').count()).toBe(0);

    // The card says how the header reads during a grace period; the dialog, what breaks a whole-header compare.
    const card = page.locator('.card', { has: page.getByRole('heading', { name: 'Signing secret' }) });
    expect(await card.textContent()).toContain('sha256=<new>,sha256=<old>');
    await page.getByRole('button', { name: 'Rotate secret…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    expect(await dialog.textContent()).toMatch(/compares the whole header .* Regenerate now/);
    await dialog.getByLabel('Grace period').selectOption({ label: '7 days' });
    const before = Date.now();
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    const expiry = page.getByTestId('previous-secret-expiry');
    await expiry.waitFor(W);
    // The new secret is shown, and the server keeps the old one signing for the 7 days chosen.
    const stored = await getWebhook(wp.core, hook.id);
    const until = Date.parse(stored.previous_secret_expires_at!);
    expect(until).toBeGreaterThanOrEqual(before + 7 * 86_400_000 - 5_000);
    expect(until).toBeLessThan(Date.now() + 7 * 86_400_000 + 5_000);
    const secret = (await revealSecret(wp.core, hook.id)).secret;
    expect(secret).not.toBe(hook.secret);
    await expect.poll(async () => page.getByTestId('webhook-secret').textContent(), W).toBe(secret);
    const year = String(new Date(until).getFullYear());
    expect(await expiry.textContent()).toContain('The previous secret also signs until');
    expect(await expiry.textContent()).toContain(year);
    await page.getByText('New signing secret created.').waitFor();
    await page.addStyleTag({ content: '.toasts { display: none }' }); // the toast would hide the panel's foot
    await page.locator('.card', { has: page.getByRole('heading', { name: 'Signing secret' }) })
      .screenshot({ path: SHOT, animations: 'disabled' });

    await page.getByRole('button', { name: 'Regenerate now…' }).click();
    await page.getByRole('dialog', { name: 'Regenerate the signing secret now?' })
      .getByRole('button', { name: 'Regenerate secret' }).click();
    await expect.poll(() => expiry.count(), W).toBe(0);
    expect((await getWebhook(wp.core, hook.id)).previous_secret_expires_at).toBeNull();
    const fresh = (await revealSecret(wp.core, hook.id)).secret;
    await expect.poll(async () => page.getByTestId('webhook-secret').textContent(), W).toBe(fresh);
  });
});
