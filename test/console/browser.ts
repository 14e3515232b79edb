// Real Chromium (Debian's package) through playwright-core, and a fresh console build to test against.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM } from '../helpers/services.js';
import { PACKAGE_ROOT } from '../../src/admin/console.js';

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}

const WEB = join(PACKAGE_ROOT, 'web');
const STAMP = join(WEB, 'dist', '.source-hash');

/** A hash of the console's source (everything in web/ but its build), to tell whether web/dist is current. */
function sourceHash(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (dir === WEB && (name === 'dist' || name === 'node_modules')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else hash.update(path).update(readFileSync(path));
    }
  };
  walk(WEB);
  return hash.digest('hex');
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
 * Builds web/ into web/dist, so the test exercises the current console source as Waypost serves it. Test files
 * running at the same time build once: a second build would empty web/dist under the first file's browser.
 */
export function buildConsole(): void {
  withBuildLock(() => {
    const hash = sourceHash();
    if (existsSync(STAMP) && readFileSync(STAMP, 'utf8') === hash) return;
    const args = ['node_modules/vite/bin/vite.js', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'];
    const res = spawnSync(process.execPath, args, { cwd: PACKAGE_ROOT, encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`console build failed:\n${res.stdout}\n${res.stderr}`);
    writeFileSync(STAMP, hash);
  });
}
