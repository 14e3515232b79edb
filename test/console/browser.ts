// Real Chromium (Debian's package) through playwright-core, and a fresh console build to test against.
import { spawnSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM } from '../helpers/services.js';
import { PACKAGE_ROOT } from '../../src/admin/console.js';

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}

/** Builds web/ into web/dist, so the test exercises the current console source as Waypost serves it. */
export function buildConsole(): void {
  const res = spawnSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'], { cwd: PACKAGE_ROOT, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`console build failed:\n${res.stdout}\n${res.stderr}`);
}
