// The console as a new user meets it, in real Chromium: every page from 360 px phones to a 1280 px laptop (no
// sideways page scroll, row buttons whole and tappable), messages above the delivery drawer, a deep link kept
// through sign-in, focus moved to new content, and the setup link saying it is spent before the form is filled.
// Screenshots of every page and width go to a temp dir (LAYOUT_SHOTS overrides it) for a person to look at.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { issueSetupToken, setupLink } from '../../src/admin/setup.js';
import { createWebhook, deleteWebhook, listWebhooks } from '../../src/webhooks/manage.js';
import { createApiKey } from '../../src/api/keys.js';
import { buildConsole, launchChromium } from './browser.js';
import { startReceiver, type Receiver } from './receiver.js';
import { seedAudit } from './states.js';

const SHOTS = process.env.LAYOUT_SHOTS ?? join(tmpdir(), 'waypost-layout');
// LAYOUT_WIDTHS=1100,1440 checks other widths too.
const WIDTHS = process.env.LAYOUT_WIDTHS?.split(',').map(Number) ?? [360, 390, 1024, 1280];
const EMAIL = 'ops@example.com';
const PASSWORD = 'layout e2e password';
const W = { timeout: 15_000, interval: 100 };

interface LayoutReport {
  page: string;
  width: number;
  scrollWidth: number;
  problems: string[];
}

/** Measured in the page: sideways scroll, and every row / drawer control whole, >= 24 px and on top where it is. */
function measure(): Omit<LayoutReport, 'page'> {
  const vw = document.documentElement.clientWidth;
  const problems: string[] = [];
  const name = (el: Element) => (el.getAttribute('aria-label') || el.textContent || el.tagName).trim().slice(0, 40);
  const dialog = document.querySelector('dialog[open]');
  const controls = dialog
    ? dialog.querySelectorAll('button, a[href], input, select, summary')
    : document.querySelectorAll('tr button, tr a[href], tr input, .topbar button, .tabs a, .sidenav a, select');
  for (const el of controls) {
    if (!(el as HTMLElement).checkVisibility()) continue;
    // A switch's checkbox is an invisible layer over its label: measure what the user sees and taps.
    const target = el.closest('.switch') ?? el;
    let r = target.getBoundingClientRect();
    if (r.width < 24 || r.height < 24) problems.push(`${name(el)}: ${Math.round(r.width)}×${Math.round(r.height)} px`);
    // Whole, where it rests: not cut by the viewport or by a scrolling or clipping container.
    for (let box: Element | null = target.parentElement; box; box = box.parentElement) {
      const clip = getComputedStyle(box).overflowX !== 'visible' ? box.getBoundingClientRect() : null;
      const cut = clip && (r.left < clip.left - 1 || r.right > clip.right + 1);
      if (cut) problems.push(`${name(el)}: cut off by ${box.className}`);
    }
    const [left, right] = [Math.round(r.left), Math.round(r.right)];
    if (left < 0 || right > vw + 1) problems.push(`${name(el)}: outside the viewport (${left}–${right})`);
    target.scrollIntoView({ block: 'center', inline: 'nearest' });
    r = target.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    const onTop = hit && (target.contains(hit) || hit.contains(target));
    if (!onTop) problems.push(`${name(el)}: covered by ${hit?.className || hit?.tagName}`);
  }
  const brand = document.querySelector('.topbar .brand')?.getBoundingClientRect();
  const account = document.querySelector('.topbar-account')?.getBoundingClientRect();
  if (brand && account && brand.right > account.left) problems.push('the top bar overlaps itself');
  window.scrollTo(0, 0);
  for (const box of document.querySelectorAll('dialog[open], .table-wrap')) box.scrollTo(0, 0);
  return { width: vw, scrollWidth: document.documentElement.scrollWidth, problems: [...new Set(problems)] };
}

async function settle(page: Page): Promise<void> {
  await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' }).catch(() => {});
  await page.evaluate(() => document.fonts.ready.then(() => new Promise((r) => requestAnimationFrame(() => r(null)))));
}

/** Checks the current page at every width, with a screenshot of each. */
async function checkAllWidths(page: Page, name: string): Promise<LayoutReport[]> {
  const reports: LayoutReport[] = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width < 800 ? 780 : 860 });
    await settle(page);
    const fullPage = (await page.locator('dialog[open]').count()) === 0; // a drawer covers the viewport only
    await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage, animations: 'disabled' });
    const report = { page: name, ...(await page.evaluate(measure)) };
    reports.push(report);
  }
  return reports;
}

/** What every report should be: no sideways scroll (scrollWidth within the width) and no problem. */
const ok = (reports: LayoutReport[]) =>
  reports.map((r) => ({ page: r.page, width: r.width, scrollWidth: Math.min(r.scrollWidth, r.width), problems: [] }));

describe.runIf(await hasChromium())('the console for a new user, from 360 to 1280 px', () => {
  let wp: Waypost;
  let base: string;
  let receiver: Receiver;
  let failing: Receiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const ids = { crm: '', erp: '', failedDelivery: '', goneDelivery: '' };

  beforeAll(async () => {
    buildConsole();
    receiver = await startReceiver();
    failing = await startReceiver();
    failing.respondWith(500);
    const config = { port: 0, host: '127.0.0.1', retryDelaysMs: [30, 30, 30, 30], pollMs: 50 };
    wp = await testWaypost({ config });
    base = (await wp.serve('all')).url!;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: base });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    mkdirSync(SHOTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await wp?.close();
    await receiver?.close();
    await failing?.close();
  });

  it('redirects the server root to the console', async () => {
    const res = await fetch(`${base}/`, { redirect: 'manual' });
    expect([301, 302]).toContain(res.status);
    expect(res.headers.get('location')).toBe('/admin/');
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: /Create the first admin|Sign in/ }).waitFor();
  });

  it('lays out the setup page at every width, then creates the first admin', async () => {
    const token = await issueSetupToken(wp.core);
    await page.goto(setupLink(wp.core, token!).replace(wp.config.baseUrl, base));
    await page.getByRole('heading', { name: 'Create the first admin' }).waitFor();
    const reports = await checkAllWidths(page, 'setup');
    expect(reports).toEqual(ok(reports));
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Repeat password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create admin and sign in' }).click();
    await page.getByRole('heading', { name: 'Webhooks & API' }).waitFor();
  });

  it('says a used setup link is spent before anyone fills the form', async () => {
    const other = await browser.newContext({ viewport: { width: 390, height: 780 } });
    try {
      const fresh = await other.newPage();
      await fresh.goto(`${base}/admin/#/setup?token=already-used`);
      await fresh.getByText('Waypost already has an admin.').waitFor();
      expect(await fresh.getByLabel('Repeat password').count()).toBe(0); // no form to fill in vain
      await fresh.getByRole('link', { name: 'Sign in' }).click();
      await fresh.getByRole('heading', { name: 'Sign in' }).waitFor();
      const messages = await fresh.locator('body').textContent();
      expect(messages).not.toContain('`');
    } finally {
      await other.close();
    }
  });

  it('fits the webhooks list at every width, also with an auto-disabled webhook', async () => {
    const events = ['booking.created', 'booking.updated', 'booking.payment.completed', 'customer.created'];
    events.push('enquiry.created');
    const crmUrl = `${receiver.url}/crm/bookings/incoming`;
    ids.crm = (await createWebhook(wp.core, { name: 'CRM sync for bookings and customers', url: crmUrl, events })).id;
    ids.erp = (await createWebhook(wp.core, { name: 'Legacy ERP', url: failing.url, events: ['enquiry.created'] })).id;
    const gone = await createWebhook(wp.core, {
      name: 'Old CRM', url: `${receiver.url}/old`, events: ['enquiry.created'],
    });
    const permissions = ['bookings.list', 'bookings.read', 'payments.list', 'customers.read'];
    await createApiKey(wp.core, { label: 'Analytics export for the finance team', permissions, rateLimit: 120 });
    await createApiKey(wp.core, { label: 'Partner portal', permissions: ['trips.list'] });
    await wp.put('enquiries', 501, { full_name: 'Ada Lovelace', email: 'ada@example.com', message: 'Open in May?' });
    const hook = async (id: string) => (await listWebhooks(wp.core)).find((w) => w.id === id);
    await expect.poll(async () => (await hook(ids.erp))?.disabled_reason ?? '', W).not.toBe('');
    await expect.poll(async () => (await hook(gone.id))?.last_delivery?.status, W).toBe('succeeded');
    const hooks = await listWebhooks(wp.core);
    ids.failedDelivery = hooks.find((w) => w.id === ids.erp)!.last_delivery!.id;
    ids.goneDelivery = hooks.find((w) => w.id === gone.id)!.last_delivery!.id;
    await deleteWebhook(wp.core, gone.id);
    await seedAudit(wp, ids.erp);

    await page.goto(`${base}/admin/#/webhooks`);
    const erpRow = page.locator('tr[data-webhook="Legacy ERP"]');
    await expect.poll(async () => erpRow.textContent(), W).toContain('Auto-disabled');
    const reports = await checkAllWidths(page, 'webhooks');
    expect(reports).toEqual(ok(reports));
  });

  it('fits the webhook editor, the logs with the drawer open, keys, settings and account at every width', async () => {
    const event = await wp.core.db.selectFrom('events').select('id').where('test', '=', 0).executeTakeFirstOrThrow();
    const pages = {
      'webhook-new': '#/webhooks/new',
      'webhook-edit': `#/webhooks/${ids.erp}`,
      logs: '#/logs',
      'logs-drawer': `#/logs?delivery=${ids.failedDelivery}`,
      'logs-alerts': '#/logs?view=alerts',
      'logs-usage': '#/logs?view=usage',
      events: '#/events',
      'event-panel': `#/events?event=${event.id}`,
      audit: '#/audit',
      keys: '#/keys',
      settings: '#/settings',
      account: '#/account',
    };
    const all: LayoutReport[] = [];
    for (const [name, hash] of Object.entries(pages)) {
      await page.goto(`${base}/admin/${hash}`);
      await page.locator('h1').waitFor();
      const drawer = page.getByRole('dialog', { name: 'Delivery details' });
      if (name === 'logs-drawer') await drawer.getByTestId('attempt').first().waitFor();
      if (name === 'events') await page.locator('tr[data-event]').first().waitFor();
      if (name === 'audit') await page.locator('tr[data-audit]').first().waitFor();
      if (name === 'event-panel') {
        await page.getByRole('dialog', { name: 'Event details' }).getByTestId('outcome').first().waitFor();
      }
      all.push(...(await checkAllWidths(page, name)));
      while (await page.locator('dialog[open]').count()) await page.keyboard.press('Escape');
    }
    expect(all).toEqual(ok(all));
  });

  it('shows messages above the open delivery drawer: a deleted webhook\'s 409, and "Redelivery queued"', async () => {
    await page.setViewportSize({ width: 1280, height: 860 });
    const onTop = async (text: string) => {
      const toast = page.locator('.toast', { hasText: text });
      await toast.waitFor();
      return toast.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !!hit && el.contains(hit);
      });
    };
    await page.goto(`${base}/admin/#/logs?delivery=${ids.goneDelivery}`);
    const panel = page.getByRole('dialog', { name: 'Delivery details' });
    await panel.getByRole('button', { name: 'Redeliver' }).click();
    expect(await onTop('was deleted')).toBe(true);

    await page.goto(`${base}/admin/#/logs`);
    const crm = page.locator('tr[data-delivery]', { hasText: 'CRM sync' }).first();
    await crm.getByRole('button', { name: /Details/ }).click();
    await panel.getByRole('button', { name: 'Redeliver' }).click();
    expect(await onTop('Redelivery queued')).toBe(true);
    await page.keyboard.press('Escape');
  });

  it('moves focus to the new content when adding a webhook and after saving it', async () => {
    await page.goto(`${base}/admin/#/webhooks`);
    await page.getByRole('link', { name: 'Add webhook' }).first().click();
    const focused = () => page.evaluate(() => {
      const el = document.activeElement;
      return `${el?.tagName} ${el?.textContent?.trim()}`;
    });
    await expect.poll(focused, W).toBe('H2 Add webhook');
    await page.getByLabel('Name').fill('Focus check');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel(/Review Created/).check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await expect.poll(focused, W).toBe('H2 Focus check');
    await page.getByLabel('Name').fill('Focus check, renamed');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(focused, W).toBe('H2 Focus check, renamed');
  });

  it('returns to a deep link after sign-in (an alert e-mail\'s link to a delivery)', async () => {
    const signedOut = await browser.newContext({ viewport: { width: 390, height: 780 } });
    try {
      const fresh = await signedOut.newPage();
      fresh.setDefaultTimeout(15_000);
      await fresh.goto(`${base}/admin/#/logs?delivery=${ids.failedDelivery}`);
      await fresh.getByRole('heading', { name: 'Sign in' }).waitFor();
      const reports = await checkAllWidths(fresh, 'sign-in');
      expect(reports).toEqual(ok(reports));
      await fresh.getByLabel('E-mail').fill(EMAIL);
      await fresh.getByLabel('Password').fill(PASSWORD);
      await fresh.getByRole('button', { name: 'Sign in' }).click();
      await fresh.getByRole('dialog', { name: 'Delivery details' }).getByTestId('attempt').first().waitFor();
      expect(new URL(fresh.url()).hash).toBe(`#/logs?delivery=${ids.failedDelivery}`);
    } finally {
      await signedOut.close();
    }
  });
});
