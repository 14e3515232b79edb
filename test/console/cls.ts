// Cumulative Layout Shift as Core Web Vitals define it (the largest session window of layout-shift entries not
// caused by input: gaps under 1 s, windows up to 5 s), measured on a fresh load of one console page in Chromium.
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { CHROMIUM } from '../helpers/services.js';
import { settle } from './states.js';

/**
 * Chromium as Lighthouse runs it: with scrollbars. Playwright hides them in headless mode by default, which hides
 * the largest shifts (a scrollbar appearing when data makes the page or the drawer taller narrows all content).
 */
export function launchWithScrollbars(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    ignoreDefaultArgs: ['--hide-scrollbars'],
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update'],
  });
}

export interface ClsResult {
  cls: number;
  /** The elements that moved, largest shift first, to find what to reserve space for. */
  sources: string[];
}

function observeShifts(): void {
  const w = window as unknown as { __shifts: { value: number; time: number; sources: string[] }[] };
  w.__shifts = [];
  const describe = (n: Node | null) => {
    if (!(n instanceof Element)) return n?.nodeName ?? '?';
    const classes = n.className ? `.${String(n.className).split(' ').join('.')}` : '';
    return `${n.tagName.toLowerCase()}${n.id ? `#${n.id}` : ''}${classes}`;
  };
  new PerformanceObserver((list) => {
    type Shift = { value: number; startTime: number; hadRecentInput: boolean; sources?: { node: Node | null }[] };
    for (const e of list.getEntries() as unknown as Shift[]) {
      const sources = (e.sources ?? []).map((s) => describe(s.node));
      if (!e.hadRecentInput) w.__shifts.push({ value: e.value, time: e.startTime, sources });
    }
  }).observe({ type: 'layout-shift', buffered: true });
}

// Lighthouse's mobile profile: a 4× slower CPU and a slow 4G network (150 ms RTT, 1.6 Mbit/s down). On an
// unthrottled loopback the data arrives before the first paint and nothing visibly shifts.
const MOBILE_NETWORK = { offline: false, latency: 150, downloadThroughput: 1_638_400 / 8, uploadThroughput: 96_000 };

/**
 * Loads `url` in a new page of `context` (throttled like Lighthouse's mobile run), waits until `ready` shows and
 * data settles, and returns its CLS.
 */
export async function measureCls(context: BrowserContext, url: string, ready: string,
  settleMs = 2500): Promise<ClsResult> {
  const page = await context.newPage();
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', MOBILE_NETWORK);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.addInitScript(observeShifts);
    await page.goto(url);
    await page.locator(ready).first().waitFor();
    await settle(page);
    await page.waitForTimeout(settleMs); // late shifts (a second poll, fonts) count too
    type Shift = { value: number; time: number; sources: string[] };
    const shifts = await page.evaluate(() => (window as unknown as { __shifts: Shift[] }).__shifts);
    let best = 0;
    let current = 0;
    let first = 0;
    let last = -Infinity;
    for (const s of shifts) {
      if (s.time - last > 1000 || s.time - first > 5000) { current = 0; first = s.time; }
      current += s.value;
      last = s.time;
      best = Math.max(best, current);
    }
    const sources = [...shifts].sort((a, b) => b.value - a.value)
      .map((s) => `${s.value.toFixed(3)} ${s.sources.join(', ')}`);
    return { cls: Math.round(best * 1000) / 1000, sources: sources.slice(0, 5) };
  } finally {
    await page.close();
  }
}

/** The console's pages for CLS (signed in unless `signedOut`), each with what shows once it is loaded. */
export const CLS_PAGES = (ids: { erp: string; failedDelivery: string }) => [
  { name: 'sign-in', hash: '#/login', ready: 'input[type=password]', signedOut: true },
  { name: 'setup-done', hash: '#/setup?token=spent', ready: 'text=Waypost already has an admin.', signedOut: true },
  { name: 'webhooks', hash: '#/webhooks', ready: 'tr[data-webhook]' },
  { name: 'webhook-new', hash: '#/webhooks/new', ready: 'form' },
  { name: 'webhook-edit', hash: `#/webhooks/${ids.erp}`, ready: '.editor-grid' },
  { name: 'keys', hash: '#/keys', ready: 'tr[data-key]' },
  { name: 'logs', hash: '#/logs', ready: 'tr[data-delivery]' },
  { name: 'delivery-drawer', hash: `#/logs?delivery=${ids.failedDelivery}`, ready: '[data-testid=attempt]' },
  { name: 'logs-alerts', hash: '#/logs?view=alerts', ready: 'h1' },
  { name: 'logs-usage', hash: '#/logs?view=usage', ready: 'h1' },
  { name: 'settings', hash: '#/settings', ready: 'form' },
];
