// Lighthouse's accessibility, best-practices and performance scores per console page (and the API reference page),
// mobile and desktop presets, on the seeded console the a11y suite uses. Writes bench/results/lighthouse.json under a
// label, so two builds compare side by side: `npm run bench:lighthouse -- --label after`, then the same command in a
// checkout whose web/ is the older console, with `--label before`. Lighthouse is not a dependency: LIGHTHOUSE_BIN
// names its CLI (default: `npx --yes lighthouse@12.8.2`); it drives Debian's Chromium (CHROME_PATH).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM } from '../test/helpers/services.js';
import { EMAIL, PASSWORD, ensureAdmin, seedConsole, startConsoleEnv } from '../test/console/states.js';

const label = process.argv[process.argv.indexOf('--label') + 1] ?? 'after';
const RESULTS = join(import.meta.dirname, 'results', 'lighthouse.json');
const [bin, ...binArgs] = (process.env.LIGHTHOUSE_BIN ?? 'npx --yes lighthouse@12.8.2').split(' ');
const CATEGORIES = ['accessibility', 'best-practices', 'performance'];

interface Scores { accessibility: number; 'best-practices': number; performance: number; cls: number; bytes: number }

// Not execFileSync: the server under test runs in this process and must keep answering.
async function lighthouse(url: string, preset: 'mobile' | 'desktop', cookie: string | null): Promise<Scores> {
  const out = join(mkdtempSync(join(tmpdir(), 'waypost-lh-')), 'report.json');
  const args = [...binArgs, url, `--only-categories=${CATEGORIES.join(',')}`, '--output=json', `--output-path=${out}`,
    '--quiet', '--chrome-flags=--headless --no-sandbox --disable-gpu --disable-background-networking'];
  if (preset === 'desktop') args.push('--preset=desktop');
  if (cookie) args.push(`--extra-headers=${JSON.stringify({ Cookie: cookie })}`);
  await promisify(execFile)(bin, args, { env: { ...process.env, CHROME_PATH: CHROMIUM }, timeout: 300_000 });
  const report = JSON.parse(readFileSync(out, 'utf8'));
  const score = (c: string) => Math.round(report.categories[c].score * 100);
  return {
    accessibility: score('accessibility'), 'best-practices': score('best-practices'), performance: score('performance'),
    cls: Number(report.audits['cumulative-layout-shift'].numericValue.toFixed(3)),
    bytes: Math.round(report.audits['total-byte-weight'].numericValue),
  };
}

const env = await startConsoleEnv();
const results: Record<string, Record<string, Scores>> = {};
try {
  await seedConsole(env);
  await ensureAdmin(env);
  const context = await env.browser.newContext({ baseURL: env.base });
  const page = await context.newPage();
  await page.goto(`${env.base}/admin/#/login`);
  await page.getByLabel('E-mail').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('h1', { hasText: 'Webhooks' }).waitFor();
  const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  await context.close();
  const pages = [
    { name: 'sign-in', url: `${env.base}/admin/#/login`, cookie: null },
    { name: 'webhooks', url: `${env.base}/admin/#/webhooks`, cookie },
    { name: 'keys', url: `${env.base}/admin/#/keys`, cookie },
    { name: 'logs', url: `${env.base}/admin/#/logs`, cookie },
    { name: 'delivery-drawer', url: `${env.base}/admin/#/logs?delivery=${env.ids.failedDelivery}`, cookie },
    { name: 'api-reference', url: `${env.base}/rest/waypost/api/v1/docs`, cookie: null },
  ];
  for (const p of pages) {
    for (const preset of ['mobile', 'desktop'] as const) {
      const s = await lighthouse(p.url, preset, p.cookie);
      (results[p.name] ??= {})[preset] = s;
      console.log(`${label} ${p.name} ${preset}: accessibility ${s.accessibility}, `
        + `best practices ${s['best-practices']}, `
        + `performance ${s.performance}, CLS ${s.cls}, ${Math.round(s.bytes / 1024)} kB`);
    }
  }
} finally {
  await env.close();
}
const all = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : {};
all[label] = {
  measured_at: new Date().toISOString(), load_average_1m: Number(loadavg()[0].toFixed(2)), pages: results,
};
writeFileSync(RESULTS, `${JSON.stringify(all, null, 2)}\n`);
console.log(`wrote ${RESULTS} (${label})`);
