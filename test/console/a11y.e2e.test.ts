// The console for keyboard and screen-reader users, in real Chromium: axe-core finds no violation in any state
// (sign-in, setup, each tab, form, error, dialog, the delivery drawer, the event panel, an auto-disabled row) at 390
// and 1280 px; every view names itself in the tab's title and takes focus to its heading; and a keyboard-only walk
// never loses focus (dialogs and the drawer hand it back to what opened them, the Active switch keeps it while it
// saves).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import { axeViolations, describeViolations } from './axe.js';
import {
  EMAIL, PASSWORD, ensureAdmin, newContext, seedConsole, settle, startConsoleEnv, walkStates, type ConsoleEnv,
} from './states.js';

const WIDTHS = [390, 1280];
const W = { timeout: 15_000, interval: 50 };

/** What has focus, as a person would name it: "BUTTON Add key", "H2 Webhooks", "INPUT Label". */
const focused = (page: Page) => page.evaluate(() => {
  const el = document.activeElement as HTMLElement | null;
  if (!el || el === document.body) return 'BODY';
  const labelled = el.getAttribute('aria-labelledby');
  const name = el.getAttribute('aria-label')
    ?? (labelled ? document.getElementById(labelled)?.textContent : null)
    ?? ((el as HTMLInputElement).labels?.[0]?.textContent || el.textContent);
  return `${el.tagName} ${name?.trim()}`;
});

async function signIn(page: Page, env: ConsoleEnv): Promise<void> {
  await ensureAdmin(env);
  const base = env.base;
  await page.goto(`${base}/admin/#/login`);
  await page.getByLabel('E-mail').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
}

describe.runIf(await hasChromium())('the console with a keyboard and a screen reader', () => {
  let env: ConsoleEnv;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    env = await startConsoleEnv();
    await seedConsole(env);
    context = await newContext(env);
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await env?.close();
  });

  it('has no axe-core violation in any console state at 390 and 1280 px', async () => {
    const states: string[] = [];
    const problems: string[] = [];
    await walkStates(env, page, async (state) => {
      states.push(state);
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: width < 800 ? 780 : 860 });
        await settle(page);
        const violations = await axeViolations(page);
        if (violations.length) problems.push(describeViolations(state, width, violations));
      }
    });
    expect(states.length).toBeGreaterThanOrEqual(32); // the walk really went everywhere
    expect(problems.join('\n')).toBe('');
  }, 240_000);

  it('asks search engines not to index the console (header and meta tag)', async () => {
    for (const path of ['/admin/', '/admin/api/session']) {
      const res = await fetch(`${env.base}${path}`);
      expect(res.headers.get('x-robots-tag')).toBe('noindex');
    }
    const html = await (await fetch(`${env.base}/admin/`)).text();
    expect(html).toContain('<meta name="robots" content="noindex" />');
  });

  it('names every view in the tab title and moves focus to its heading when the view changes', async () => {
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(`${env.base}/admin/#/login`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.title()).toBe('Sign in · Waypost');
    await page.goto(`${env.base}/admin/#/setup?token=spent`);
    await page.getByRole('heading', { name: 'Setup is done' }).waitFor();
    expect(await page.title()).toBe('Setup is done · Waypost');
    await signIn(page, env);
    expect(await page.title()).toBe('Webhooks · Waypost');

    const views: [string, string, string][] = [ // tab or link, title, heading that takes focus
      ['API Keys', 'API keys · Waypost', 'H2 API keys'],
      ['Logs', 'Webhook deliveries · Logs · Waypost', 'H2 Logs'],
      ['Events', 'Events · Waypost', 'H2 Events'],
      ['Audit log', 'Audit log · Waypost', 'H2 Audit log'],
      ['Alerts & retention', 'Alerts & retention · Waypost', 'H1 Alerts & retention'],
      ['Account', 'Account · Waypost', 'H1 Account'],
      ['Webhooks & API', 'Webhooks · Waypost', 'H2 Webhooks'],
      ['Legacy ERP', 'Legacy ERP · Webhooks · Waypost', 'H2 Legacy ERP'],
    ];
    for (const [link, title, heading] of views) {
      await page.getByRole('link', { name: link, exact: true }).first().click();
      await expect.poll(() => focused(page), W).toBe(heading);
      expect(await page.title()).toBe(title);
    }
    await page.goto(`${env.base}/admin/#/webhooks/new`);
    await expect.poll(() => page.title(), W).toBe('Add webhook · Waypost');
    await page.goto(`${env.base}/admin/#/logs?view=alerts`);
    await expect.poll(() => page.title(), W).toBe('E-mail alerts · Logs · Waypost');
    await page.getByRole('button', { name: 'API usage' }).click();
    await expect.poll(() => page.title(), W).toBe('API usage · Logs · Waypost');
    expect(await focused(page)).toBe('BUTTON API usage'); // a view's own controls keep focus
  });

  it('keeps focus where a keyboard user expects through a whole walk', async () => {
    const kb = await newContext(env);
    const p = await kb.newPage();
    const at = (expected: string) => expect.poll(() => focused(p), W).toBe(expected);
    try {
      await signIn(p, env);
      // Add a webhook, save it: focus goes to the form's heading, then the saved webhook's.
      await p.getByRole('link', { name: 'Add webhook' }).first().focus();
      await p.keyboard.press('Enter');
      await at('H2 Add webhook');
      await p.getByLabel('Name').fill('Keyboard walk');
      await p.getByLabel('Endpoint URL').fill(env.receiver.url);
      await p.getByLabel(/Review Created/).focus();
      await p.keyboard.press('Space');
      await p.getByRole('button', { name: 'Add webhook' }).focus();
      await p.keyboard.press('Enter');
      await at('H2 Keyboard walk');

      // Toggle it off and on: focus stays on the switch, which says it is busy and ignores a second press.
      let release = () => {};
      const held = new Promise<void>((resolve) => { release = resolve; });
      let holding = false;
      await p.route('**/admin/api/webhooks/*/disable', async (route) => {
        holding = true;
        await held; // the disable stays in flight until the second press is in
        await route.continue();
      });
      const active = p.getByRole('switch', { name: 'Webhook active' });
      await active.focus();
      await p.keyboard.press('Space');
      await expect.poll(() => holding, W).toBe(true);
      expect(await active.getAttribute('aria-busy')).toBe('true');
      await at('INPUT Webhook active');
      await p.keyboard.press('Space'); // while the first change is saved: ignored
      release();
      await expect.poll(() => active.getAttribute('aria-busy'), W).toBe(null);
      expect(await active.isChecked()).toBe(false);
      await at('INPUT Webhook active');
      await p.keyboard.press('Space');
      await expect.poll(() => active.isChecked(), W).toBe(true);
      await at('INPUT Webhook active');

      // A delivery's details: focus goes into the drawer (not to ×) and back to "Details" on Escape or ×.
      await p.getByRole('button', { name: 'Send test' }).focus();
      await p.keyboard.press('Enter');
      await p.getByTestId('test-result').waitFor();
      await p.goto(`${env.base}/admin/#/logs`);
      const row = p.locator('tr[data-delivery]', { hasText: 'Keyboard walk' }).first();
      const details = row.getByRole('button', { name: /Details/ });
      const detailsName = `BUTTON ${await details.getAttribute('aria-label')}`;
      for (const close of ['Escape', 'the × button']) {
        await details.focus();
        await p.keyboard.press('Enter');
        const drawer = p.getByRole('dialog', { name: 'Delivery details' });
        await drawer.getByTestId('attempt').waitFor();
        expect(await drawer.evaluate((d) => d.contains(document.activeElement))).toBe(true);
        expect(await focused(p)).not.toBe('BUTTON Close');
        if (close === 'Escape') await p.keyboard.press('Escape');
        else {
          await drawer.getByRole('button', { name: 'Close' }).focus();
          await p.keyboard.press('Enter');
        }
        await drawer.waitFor({ state: 'detached' });
        await at(detailsName);
      }

      // Create a key: the dialog opens on its first field; the new key's dialog closes back onto "Add key".
      await p.goto(`${env.base}/admin/#/keys`);
      const addKey = p.getByRole('button', { name: 'Add key', exact: true });
      await addKey.focus();
      await p.keyboard.press('Enter');
      await at('INPUT Label');
      await p.keyboard.press('Escape'); // nothing typed: closes at once
      await at('BUTTON Add key');
      await p.keyboard.press('Enter');
      await at('INPUT Label');
      await p.keyboard.type('Keyboard key');
      await p.getByLabel('Trips: list').focus();
      await p.keyboard.press('Space');
      await p.getByRole('button', { name: 'Create key' }).focus();
      await p.keyboard.press('Enter');
      const created = p.getByRole('dialog', { name: 'Your new API key' });
      await created.getByTestId('new-secret').waitFor();
      expect(await created.evaluate((d) => d.contains(document.activeElement))).toBe(true);
      expect(await focused(p)).not.toBe('BUTTON Close');
      await p.keyboard.press('Escape'); // not copied yet: it asks first
      await at('BUTTON Go back and copy it');
      await p.keyboard.press('Enter');
      await at('BUTTON I have saved the secret');
      await p.keyboard.press('Enter');
      await at('BUTTON Go back and copy it');
      await created.getByRole('button', { name: 'Yes, I copied it: close' }).focus();
      await p.keyboard.press('Enter');
      await created.waitFor({ state: 'detached' });
      await at('BUTTON Add key');

      // A confirmation's Cancel returns focus too.
      await p.getByRole('button', { name: 'Delete Keyboard key' }).focus();
      await p.keyboard.press('Enter');
      await at('BUTTON Cancel');
      await p.keyboard.press('Enter');
      await at('BUTTON Delete Keyboard key');
    } finally {
      await kb.close();
    }
  }, 120_000);
});
