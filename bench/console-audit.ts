// The console's accessibility and layout stability, measured the way reviewers do: axe-core violations in every
// console state at 390 and 1280 px, and mobile (390 px) CLS of each page on a fresh load. Writes
// bench/results/console-audit.json. Run: npm run bench:console (builds web/ first if its source changed). The
// in-page observer does not see every shift Lighthouse reports; bench/results/console-lighthouse-cls.json has
// Lighthouse 12.8 mobile CLS before and after (0.135 → 0 on the Webhooks and API Keys tabs).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { axeViolations } from '../test/console/axe.js';
import { CLS_PAGES, launchWithScrollbars, measureCls } from '../test/console/cls.js';
import { newContext, seedConsole, settle, startConsoleEnv, walkStates } from '../test/console/states.js';

const WIDTHS = [390, 1280];
const RESULTS = join(import.meta.dirname, 'results');

const env = await startConsoleEnv();
try {
  await seedConsole(env);
  const context = await newContext(env);
  const page = await context.newPage();
  const axe: Record<string, Record<number, { violations: number; nodes: number; ids: string[] }>> = {};
  await walkStates(env, page, async (state) => {
    axe[state] = {};
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: width < 800 ? 780 : 860 });
      await settle(page);
      const found = await axeViolations(page);
      const nodes = found.reduce((n, v) => n + v.nodes.length, 0);
      axe[state][width] = { violations: found.length, nodes, ids: found.map((v) => `${v.impact}:${v.id}`) };
    }
    const line = WIDTHS.map((w) => `${w}px ${axe[state][w].violations} (${axe[state][w].ids.join(' ') || 'none'})`);
    console.log(`axe ${state}: ${line.join(', ')}`);
  });
  await context.close();

  // CLS: each page loaded afresh in a new tab (signed in, assets cached as on a second visit), in a Chromium with
  // scrollbars as Lighthouse runs it (Playwright hides them).
  const clsBrowser = await launchWithScrollbars();
  const mobile = { viewport: { width: 390, height: 780 }, baseURL: env.base };
  const signedIn = await clsBrowser.newContext(mobile);
  const login = await signedIn.newPage();
  await login.goto(`${env.base}/admin/#/login`);
  await login.getByLabel('E-mail').fill('ops@example.com');
  await login.getByLabel('Password').fill('a11y e2e password');
  await login.getByRole('button', { name: 'Sign in' }).click();
  await login.locator('h1', { hasText: 'Webhooks' }).waitFor();
  await login.close();
  const signedOut = await clsBrowser.newContext(mobile);
  const cls: Record<string, { cls: number; sources: string[] }> = {};
  for (const p of CLS_PAGES(env.ids)) {
    cls[p.name] = await measureCls(p.signedOut ? signedOut : signedIn, `${env.base}/admin/${p.hash}`, p.ready);
    const { cls: value, sources } = cls[p.name];
    console.log(`CLS 390px ${p.name}: ${value}${sources.length ? `  (${sources.join('; ')})` : ''}`);
  }
  await clsBrowser.close();
  const total = Object.values(axe).reduce((n, s) => n + WIDTHS.reduce((m, w) => m + s[w].violations, 0), 0);
  const worst = Math.max(...Object.values(cls).map((c) => c.cls));
  const states = Object.keys(axe).length;
  console.log(`axe: ${total} violations over ${states} states × ${WIDTHS.length} widths; worst CLS ${worst}`);
  mkdirSync(RESULTS, { recursive: true });
  const measured = new Date().toISOString();
  const out = {
    measured_at: measured, axe_core: '4.14.1', widths: WIDTHS, axe_total: total, worst_cls: worst, axe, cls,
  };
  writeFileSync(join(RESULTS, 'console-audit.json'), `${JSON.stringify(out, null, 2)}\n`);
} finally {
  await env.close();
}
