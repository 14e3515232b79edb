// The console's rough edges a newcomer met (issue 33), in real Chromium at 1280 and 390 px: a URL the server refuses
// on Add webhook is shown where the user is looking and takes focus; on first load Tab reaches "Skip to content"
// first, and a view change focuses its heading without a focus ring; the Logs search box is a form field like the
// others; the delivery drawer's Redeliver and Add key's permission names fit a phone; a message does not cover the
// control that caused it; the settings page says whether private targets are allowed. Screenshots go to a temp dir
// (NEWCOMER_SHOTS overrides it).
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { completeSetup, issueSetupToken } from '../../src/admin/setup.js';
import { createWebhook } from '../../src/webhooks/manage.js';
import { sendTestEvent } from '../../src/webhooks/test-send.js';
import { setPrivateTargets } from '../../src/webhooks/private-targets.js';
import { buildConsole, launchChromium } from './browser.js';
import { startReceiver, type Receiver } from './receiver.js';

const SHOTS = process.env.NEWCOMER_SHOTS ?? join(tmpdir(), 'waypost-newcomer');
const EMAIL = 'ops@example.com';
const PASSWORD = 'newcomer e2e password';
const W = { timeout: 15_000, interval: 50 };

/** The focused element as a person names it: "INPUT Endpoint URL", "H2 Logs", "A Skip to content". */
const focused = (page: Page) => page.evaluate(() => {
  const el = document.activeElement as HTMLElement | null;
  if (!el || el === document.body) return 'BODY';
  const name = (el as HTMLInputElement).labels?.[0]?.textContent || el.getAttribute('aria-label') || el.textContent;
  return `${el.tagName} ${name?.trim()}`;
});

/** Where an element is on screen, and the viewport's size. */
const box = (page: Page, selector: string) => page.locator(selector).first().evaluate((el) => {
  const r = el.getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, vw: innerWidth, vh: innerHeight };
});

const overlaps = (a: DOMRectLike, b: DOMRectLike) =>
  a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
interface DOMRectLike { top: number; bottom: number; left: number; right: number }

describe.runIf(await hasChromium())('the console as a newcomer meets it', () => {
  let wp: Waypost;
  let base: string;
  let browser: Browser;
  let receiver: Receiver;
  let webhookId: string | undefined;
  let deliveryId: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    buildConsole();
    mkdirSync(SHOTS, { recursive: true });
    receiver = await startReceiver();
    // The production default: private targets refused (no WAYPOST_ALLOW_PRIVATE_TARGETS, no stored setting).
    wp = await testWaypost({ env: { WAYPOST_HOST_TOKEN: 'test-host-token' },
      config: { port: 0, host: '127.0.0.1', pollMs: 50 } });
    base = (await wp.serve('all')).url!;
    browser = await launchChromium();
    await completeSetup(wp.core, (await issueSetupToken(wp.core))!, EMAIL, PASSWORD);
  }, 120_000);

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await wp?.close();
    await receiver?.close();
  });

  async function open(width: number, hash: string, height = width < 800 ? 780 : 860): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height } });
    context.setDefaultTimeout(15_000);
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${base}/admin/#/login`);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
    await page.goto(`${base}/admin/${hash}`);
    return page;
  }

  for (const width of [1280, 390]) {
    it(`shows a refused URL on Add webhook at the field, focused, at ${width} px`, async () => {
      const page = await open(width, '#/webhooks/new');
      await page.getByLabel('Name').fill('Local receiver');
      await page.getByLabel('Endpoint URL').fill('http://127.0.0.1:3000/hooks');
      await page.getByLabel(/Booking Created/).check();
      await page.getByRole('button', { name: 'Add webhook' }).click(); // at the form's end, scrolled to
      const error = page.locator('[data-field="url"] .field-error');
      await error.waitFor();
      expect(await error.textContent()).toContain('npx waypost settings set --allow-private-targets true');
      await expect.poll(() => focused(page), W).toBe('INPUT Endpoint URL');
      const shown = await box(page, '[data-field="url"] .field-error');
      const label = await box(page, '[data-field="url"] label');
      expect(label.top).toBeGreaterThanOrEqual(56); // below the sticky top bar
      expect(shown.bottom).toBeLessThanOrEqual(shown.vh);
      await page.screenshot({ path: join(SHOTS, `add-webhook-refused-${width}.png`) });
    });

    it(`keeps focus at the top on first load and focuses a new view's heading without a ring at ${width} px`,
      async () => {
        const page = await open(width, '#/webhooks');
        for (const hash of ['#/webhooks/new', '#/webhooks', '#/logs']) {
          await page.goto(`${base}/admin/${hash}`);
          await page.reload(); // a first load of this view
          await page.locator('main h2').first().waitFor();
          await page.keyboard.press('Tab');
          expect(await focused(page), hash).toBe('A Skip to content');
        }
        // A view change by keyboard: its heading takes focus, and shows no ring (it is not a control).
        await page.getByRole('link', { name: 'API Keys', exact: true }).focus();
        await page.keyboard.press('Enter');
        await expect.poll(() => focused(page), W).toBe('H2 API keys');
        const ring = await page.evaluate(() => {
          const style = getComputedStyle(document.activeElement!);
          return `${style.outlineStyle} ${style.boxShadow}`;
        });
        expect(ring).toBe('none none');
      });

    it(`draws the Logs search box like the selects beside it at ${width} px`, async () => {
      const page = await open(width, '#/logs');
      const search = page.locator('input[type="search"]');
      await search.waitFor();
      const [searchHeight, selectHeight, border] = await page.evaluate(() => {
        const s = document.querySelector('input[type="search"]')!;
        return [s.getBoundingClientRect().height, document.querySelector('.filters select')!
          .getBoundingClientRect().height, getComputedStyle(s).borderRadius];
      });
      expect(searchHeight).toBe(selectHeight);
      expect(searchHeight).toBe(36);
      expect(border).toBe('6px');
    });
  }

  /** A webhook to the local receiver (allowed as `waypost settings set --allow-private-targets true` allows it). */
  const ensureWebhook = async () => {
    await setPrivateTargets(wp.core, true);
    webhookId ??= (await createWebhook(wp.core, { name: 'Payments to the CRM with a long name', url: receiver.url,
      events: ['booking.due.payment.completed'] })).id;
  };

  it('keeps the drawer\'s Redeliver on screen at 390 px (and 1280)', async () => {
    await ensureWebhook();
    deliveryId = (await sendTestEvent(wp.core, webhookId!, 'booking.due.payment.completed')).delivery_id;
    for (const width of [390, 1280]) {
      const page = await open(width, `#/logs?delivery=${deliveryId}`);
      const button = page.getByRole('button', { name: 'Redeliver' });
      await button.waitFor();
      const b = await box(page, 'dialog[open] .detail-summary button');
      expect(b.left).toBeGreaterThanOrEqual(0);
      expect(b.right).toBeLessThanOrEqual(b.vw);
      const cut = await page.locator('dialog[open] .dialog-body').evaluate((el) => el.scrollWidth > el.clientWidth);
      expect(cut).toBe(false);
      await page.screenshot({ path: join(SHOTS, `drawer-${width}.png`) });
    }
  });

  it('shows every permission name whole in Add key at 390 px (and 1280)', async () => {
    for (const width of [390, 1280]) {
      const page = await open(width, '#/keys');
      await page.getByRole('button', { name: 'Add key', exact: true }).click();
      await page.locator('dialog[open] .perm-table').waitFor();
      const clipped = await page.locator('dialog[open]').evaluate((dialog) => {
        const body = dialog.querySelector('.dialog-body')!.getBoundingClientRect();
        return [...dialog.querySelectorAll<HTMLElement>('.perm-table td, .perm-table th')].flatMap((cell) => {
          const r = cell.getBoundingClientRect();
          const whole = cell.scrollWidth <= cell.clientWidth + 1 && r.left >= body.left && r.right <= body.right + 1;
          return whole ? [] : [cell.textContent];
        });
      });
      expect(clipped, `at ${width} px`).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `add-key-${width}.png`) });
    }
  });

  it('puts a message where it does not cover the switch that caused it, at 390 and 1280 px', async () => {
    await ensureWebhook();
    for (const name of ['Bookings to the CRM', 'Reviews to Slack']) {
      await createWebhook(wp.core, { name, url: receiver.url, events: ['review.created'] });
    }
    for (const width of [390, 1280]) {
      const page = await open(width, '#/webhooks', 560);
      const name = 'Bookings to the CRM';
      const toggle = page.getByRole('switch', { name: `${name} active` });
      await toggle.waitFor();
      const flip = page.locator(`tr[data-webhook="${name}"] .switch`);
      if (!(await toggle.isChecked())) await flip.click(); // on again after the first width's turn
      await page.locator('.toast').waitFor({ state: 'detached', timeout: 10_000 }).catch(() => {});
      // The row low on the screen, where a message at the bottom would sit on it.
      await toggle.evaluate((el) => el.closest('.switch')!.scrollIntoView({ block: 'end' }));
      await flip.click();
      const toast = page.locator('.toast', { hasText: `${name} is disabled` });
      await toast.waitFor();
      expect(await focused(page)).toBe(`INPUT ${name} active`);
      const message = await box(page, '.toast');
      const control = await box(page, `tr[data-webhook="${name}"] .switch`);
      const status = await box(page, `tr[data-webhook="${name}"] .status-cell`);
      expect(overlaps(message, control), `at ${width} px`).toBe(false);
      expect(overlaps(message, status), `at ${width} px`).toBe(false);
      await page.screenshot({ path: join(SHOTS, `toast-${width}.png`) });
    }
  });

  it('keeps "Webhook created" off the new signing secret it shows, at 390 and 1280 px', async () => {
    await setPrivateTargets(wp.core, true);
    for (const width of [390, 1280]) {
      const page = await open(width, '#/webhooks/new');
      await page.getByLabel('Name').fill(`Created at ${width}`);
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByLabel(/Booking Created/).check();
      await page.getByRole('button', { name: 'Add webhook' }).click();
      await page.locator('.toast', { hasText: 'Webhook created' }).waitFor();
      await page.getByRole('heading', { name: `Created at ${width}` }).waitFor();
      const message = await box(page, '.toast');
      for (const what of ['[data-testid="webhook-secret"]', '.editor-title', '.editor-header [role="switch"]']) {
        const shown = await box(page, what);
        const onScreen = shown.bottom > 0 && shown.top < shown.vh;
        expect(onScreen && overlaps(message, shown), `${what} at ${width} px`).toBe(false);
      }
      await page.screenshot({ path: join(SHOTS, `created-${width}.png`) });
    }
  });

  it('says on the settings page whether private targets are allowed, and how to change it', async () => {
    const page = await open(1280, '#/settings');
    const section = page.getByTestId('private-targets');
    await section.waitFor();
    expect(await section.textContent()).toContain('Private addresses are allowed');
    expect(await section.textContent()).toContain('npx waypost settings set --allow-private-targets false');
    await setPrivateTargets(wp.core, false);
    await page.reload();
    await section.waitFor();
    expect(await section.textContent()).toContain('npx waypost settings set --allow-private-targets true');
    await page.screenshot({ path: join(SHOTS, 'settings-1280.png'), fullPage: true });
  });
});
