// Real Chromium (Debian's package) through playwright-core, and a fresh console build to test against.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, freePort } from '../helpers/services.js';
import { CHROMIUM_ARGS } from '../helpers/chromium-args.js';
import { testWaypost } from '../helpers/waypost.js';
import { issueSetupToken, setupLink } from '../../src/admin/setup.js';
import type { Waypost } from '../../src/sdk.js';
import { PACKAGE_ROOT } from '../../src/admin/console.js';
import { CONSOLE_DIST, precompressDir } from '../../src/build/precompress.js';
import { CONSOLE_STAMP, consoleSourceHash } from '../../src/build/console-source.js';

/**
 * The run's one Chromium (started by test/helpers/global-setup.ts), connected to: the suite's contexts are its own,
 * and `close()` closes them and disconnects. Outside such a run (a file run alone by hand), a Chromium of its own.
 */
export async function launchChromium(): Promise<Browser> {
  const shared = process.env.WAYPOST_TEST_CHROMIUM;
  if (shared) return chromium.connect(shared);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** Runs `fn` holding a lock shared by the test files running at once (a directory: mkdir is atomic). */
function withBuildLock(fn: () => void): void {
  const id = createHash('sha256').update(PACKAGE_ROOT).digest('hex').slice(0, 12);
  const lock = join(tmpdir(), `waypost-console-build-${id}`);
  const wait = new Int32Array(new SharedArrayBuffer(4));
  for (const started = Date.now(); ;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than a build can take was left by a killed run.
      const stale = existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 180_000;
      if (stale) rmSync(lock, { recursive: true, force: true });
      if (Date.now() - started > 240_000) throw new Error(`waited 4 minutes for the console build lock ${lock}`);
      Atomics.wait(wait, 0, 0, 200);
    }
  }
  try {
    fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Builds web/ into web/dist, so the test exercises the current console source as Waypost serves it, unless
 * web/dist was built from this very source (by `npm run build`, or a file before). Test files running at the same
 * time build once: a second build would empty web/dist under the first file's browser.
 */
export function buildConsole(): void {
  withBuildLock(() => {
    const hash = consoleSourceHash();
    if (existsSync(CONSOLE_STAMP) && readFileSync(CONSOLE_STAMP, 'utf8') === hash) return;
    const args = ['node_modules/vite/bin/vite.js', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'];
    // NODE_ENV=production as `npm run build` has it: under vitest (NODE_ENV=test) Vite would bundle React's dev build.
    const env = { ...process.env, NODE_ENV: 'production' };
    const res = spawnSync(process.execPath, args, { cwd: PACKAGE_ROOT, encoding: 'utf8', env });
    if (res.status !== 0) throw new Error(`console build failed:\n${res.stdout}\n${res.stderr}`);
    precompressDir(CONSOLE_DIST); // as `npm run build` leaves it: suites that read the .br/.gz files share this build
    writeFileSync(CONSOLE_STAMP, hash);
  });
}

export interface SignedInConsole { wp: Waypost; base: string; browser: Browser; page: Page }

/**
 * A served Waypost (all roles, on a free port) and a Chromium page signed in as its first admin through the setup
 * link: what a browser suite that is not about signing in starts from.
 */
export async function signedInConsole(options: { viewport: { width: number; height: number };
  acceptDownloads?: boolean; password: string }): Promise<SignedInConsole> {
  buildConsole();
  const port = await freePort();
  const wp = await testWaypost({ config: { port, host: '127.0.0.1', baseUrl: `http://127.0.0.1:${port}` } });
  const base = (await wp.serve('all')).url!;
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: options.viewport, baseURL: base,
    acceptDownloads: options.acceptDownloads ?? false });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const token = await issueSetupToken(wp.core);
  await page.goto(setupLink(wp.core, token!));
  await page.getByLabel('E-mail').fill('ops@example.com');
  await page.getByLabel('Password', { exact: true }).fill(options.password);
  await page.getByLabel('Repeat password').fill(options.password);
  await page.getByRole('button', { name: 'Create admin and sign in' }).click();
  await page.getByRole('heading', { name: 'Webhooks & API' }).waitFor();
  return { wp, base, browser, page };
}
