// The console's Audit log tab in real Chromium at 1280 and 390 px: an API key created with the browser's own session
// and a webhook deleted from the command line show newest first with who, what and from where, and the "Who" filter
// narrows the list (in the URL, so it can be shared).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import type { Waypost } from '../../src/sdk.js';
import { cliActor, recordAudit } from '../../src/audit/record.js';
import { signedInConsole } from './browser.js';

const W = { timeout: 15_000, interval: 100 };

describe.runIf(await hasChromium()).each([1280, 390])('the Audit log tab at %i px', (width) => {
  let wp: Waypost;
  let browser: Browser;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    ({ wp, browser, page, base } = await signedInConsole({
      viewport: { width, height: 900 }, password: 'audit e2e password',
    }));
    await recordAudit(wp.core, cliActor(), { action: 'webhook.deleted', targetType: 'webhook', targetId: 'wh_old' });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await wp?.close();
  });

  it('lists who did what, and filters by who', async () => {
    // A console action, through the browser's session (cookie and CSRF token), as the API Keys tab sends it.
    const csrf = (await (await page.request.get(`${base}/admin/api/session`)).json()).csrf_token as string;
    const created = await page.request.post(`${base}/admin/api/keys`, { headers: { 'x-csrf-token': csrf },
      data: { label: 'Shop', permissions: ['bookings.list'] } });
    expect(created.status()).toBe(201);
    const { id, secret } = await created.json() as { id: string; secret: string };

    await page.goto(`${base}/admin/#/audit`);
    await page.getByRole('heading', { name: 'Audit log', exact: true }).waitFor();
    const rows = page.locator('table[aria-label="Audit log"] tbody tr');
    await expect.poll(() => rows.count(), W).toBe(3);
    const first = await rows.nth(0).textContent();
    expect(first).toContain('ops@example.com');
    expect(first).toContain('Console or admin API');
    expect(first).toContain('API key created');
    expect(first).toContain(id);
    expect(first).toContain('127.0.0.1');
    const second = await rows.nth(1).textContent();
    expect(second).toContain('Command line');
    expect(second).toContain('Webhook deleted');
    expect(second).toContain('wh_old');
    // The oldest: the account the setup link created, by its new owner.
    const third = await rows.nth(2).textContent();
    expect(third).toContain('Admin account created');
    expect(third).toContain('ops@example.com');
    expect(third).toContain('via: setup link');
    expect(await page.locator('main').textContent()).not.toContain(secret);
    await page.screenshot({ path: join(tmpdir(), `waypost-audit-${width}.png`), fullPage: true });

    await page.getByLabel('Who').selectOption('cli');
    await expect.poll(() => page.url(), W).toContain('actor_type=cli');
    await expect.poll(() => rows.count(), W).toBe(1);
    expect(await rows.nth(0).textContent()).toContain('wh_old');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows.count(), W).toBe(3);
  });

  it('keeps the audit log as long as Alerts & retention says, and records that change', async () => {
    await page.getByRole('link', { name: 'Alerts & retention' }).click();
    const field = page.getByLabel('Keep the audit log for (days)');
    await expect.poll(() => field.inputValue(), W).toBe('365');
    await field.fill('90');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => wp.core.settings.auditRetentionDays(), W).toBe(90);
    await page.goto(`${base}/admin/#/audit?action=settings.changed`);
    const rows = page.locator('table[aria-label="Audit log"] tbody tr');
    await expect.poll(() => rows.count(), W).toBe(1);
    expect(await rows.nth(0).textContent()).toContain('fields: audit retention days');
  });
});
