// The console's charts (issue 37) in real Chromium at 1280 and 390 px: the Webhooks tab shows the chosen webhook's
// health and its delivery charts, the API Keys tab a key's calls; each chart fits the screen and "Show table" gives
// the same numbers as a table. Screenshots: test-results/charts-*.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { hasChromium } from '../helpers/services.js';
import { EMAIL, PASSWORD, ensureAdmin, newContext, seedConsole, settle, startConsoleEnv, type ConsoleEnv } from
  './states.js';

describe.runIf(await hasChromium())('console charts', () => {
  let env: ConsoleEnv;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    env = await startConsoleEnv();
    await seedConsole(env);
    await ensureAdmin(env);
    context = await newContext(env);
    page = await context.newPage();
    await page.goto(`${env.base}/admin/#/login`);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await env?.close();
  });

  /** The chart canvases' right edges and the page's width: each chart must fit the screen. */
  const fits = (p: Page) => p.evaluate(() => [...document.querySelectorAll('.chart-canvas canvas')]
    .map((c) => c.getBoundingClientRect().right <= document.documentElement.clientWidth + 1));

  for (const width of [1280, 390]) {
    it(`shows delivery health and charts, and their tables, at ${width} px`, async () => {
      await page.setViewportSize({ width, height: width < 800 ? 780 : 860 });
      await page.goto(`${env.base}/admin/#/webhooks`);
      const health = page.getByTestId('webhook-health');
      await health.waitFor();
      await page.locator('select', { has: page.getByRole('option', { name: 'Legacy ERP' }) })
        .selectOption({ label: 'Legacy ERP' });
      // Legacy ERP failed 5 times (retried 4 times, then failed) and was disabled.
      await expect.poll(() => health.textContent(), { timeout: 15_000 }).toContain('Failing for 5 attempts');
      expect(await health.textContent()).toContain('0%');
      await page.locator('.chart-canvas canvas').nth(1).waitFor();
      expect(await fits(page)).toEqual([true, true]);
      await settle(page);
      await page.screenshot({ path: `test-results/charts-webhooks-${width}.png`, fullPage: true });
      await page.getByRole('button', { name: 'Show table' }).first().click();
      const table = page.getByRole('table', { name: 'Attempts by outcome' });
      const rows = await table.locator('tbody tr').allTextContents();
      expect(rows).toHaveLength(96);
      const cells = await table.locator('tbody tr td').allTextContents();
      const sum = (col: number) => cells.filter((_c, i) => i % 3 === col).reduce((n, c) => n + Number(c), 0);
      expect([sum(0), sum(1), sum(2)]).toEqual([0, 4, 1]);
      await page.getByRole('button', { name: 'Show chart' }).click();
      await page.locator('.chart-canvas canvas').nth(1).waitFor();
    }, 60_000);

    it(`shows a key's calls by status, and their table, at ${width} px`, async () => {
      await page.setViewportSize({ width, height: width < 800 ? 780 : 860 });
      const key = (await env.wp.core.db.selectFrom('api_keys').select('id').orderBy('created_at').orderBy('id')
        .executeTakeFirstOrThrow()).id;
      await env.wp.core.db.insertInto('api_usage_hours').values({ key_id: key,
        hour: Math.floor(Date.now() / 3_600_000) * 3_600_000, ok: 40, client_errors: 3, rate_limited: 2,
        server_errors: 0 }).onConflict((oc) => oc.doNothing()).execute();
      await page.goto(`${env.base}/admin/#/keys`);
      const totals = page.getByTestId('key-usage-totals');
      await expect.poll(() => totals.textContent(), { timeout: 15_000 }).toContain('40 answered (2xx)');
      expect(await totals.textContent()).toContain('2 rate-limited (429)');
      await page.locator('.chart-canvas canvas').first().waitFor();
      expect(await fits(page)).toEqual([true]);
      await settle(page);
      await page.screenshot({ path: `test-results/charts-keys-${width}.png`, fullPage: true });
      await page.getByRole('button', { name: 'Show table' }).click();
      const table = page.getByRole('table', { name: 'Calls by status' });
      expect(await table.locator('tbody tr').count()).toBe(24);
      expect(await table.locator('tbody').textContent()).toContain('40');
      await page.getByRole('button', { name: 'Show chart' }).click();
    }, 60_000);
  }
});
