// bin/waypost.js, as operators run it (the build): `serve` and `import` run again as a child with V8 heap flags
// sized for them, the launcher passes signals on and exits with the child, and a child never outlives it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childPids } from '../helpers/processes.js';
import { freePort } from '../helpers/services.js';
import { tempSqliteUrl } from './run.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/waypost.js');
const built = existsSync(join(ROOT, 'dist/cli/main.js'));
if (!built) console.warn('launcher tests skipped: no build (run `npm run build`)');

const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  started.length = 0;
});

/** Running (not gone, not a zombie waiting to be reaped). */
const alive = (pid: number) => {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
};
const argsOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

async function until<T>(what: () => T | Promise<T>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts `waypost serve` through the launcher and waits until it answers /healthz. */
async function serve(env: Record<string, string>): Promise<{ launcher: ChildProcess; server: number }> {
  const port = await freePort();
  const launcher = spawn(process.execPath, [BIN, 'serve'], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', DATABASE_URL: tempSqliteUrl(), PORT: String(port), ...env },
    stdio: 'ignore',
  });
  started.push(launcher);
  await until(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok ?? false);
  const [server] = childPids(launcher.pid!);
  return { launcher, server: server ?? launcher.pid! };
}

const exited = (c: ChildProcess) => new Promise<number | null>((r) => {
  if (c.exitCode !== null || c.signalCode !== null) r(c.exitCode);
  else c.once('exit', (code) => r(code));
});

describe.skipIf(!built && process.env.CI !== 'true')('bin/waypost.js launcher', () => {
  it('serves with a heap sized from the answer cache, and leaves flags the operator gives alone', async () => {
    const plain = await serve({});
    expect(plain.server).not.toBe(plain.launcher.pid);
    expect(argsOf(plain.server)).toEqual(expect.arrayContaining(['--max-semi-space-size=4',
      '--max-old-space-size=160']));
    const bigCache = await serve({ WAYPOST_CACHE_MAX_BYTES: String(256 * 1024 * 1024) });
    expect(argsOf(bigCache.server)).toContain('--max-old-space-size=352');
    // Read as the server reads it: empty is the default 64 MB.
    const empty = await serve({ WAYPOST_CACHE_MAX_BYTES: '' });
    expect(argsOf(empty.server)).toContain('--max-old-space-size=160');
    const own = await serve({ NODE_OPTIONS: '--max-old-space-size=300' });
    expect(own.server).toBe(own.launcher.pid); // no second process: the operator's flags hold
  }, 60_000);

  it('passes SIGTERM on (a clean stop, exit 0), and a server whose launcher is SIGKILLed stops too', async () => {
    const a = await serve({});
    a.launcher.kill('SIGTERM');
    expect(await exited(a.launcher)).toBe(0);
    await until(() => !alive(a.server));

    const b = await serve({});
    b.launcher.kill('SIGKILL');
    await exited(b.launcher);
    await until(() => !alive(b.server), 10_000);
  }, 60_000);
});
