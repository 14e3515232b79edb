// Worker processes (`waypost serve --role worker`) for the throttle's multi-process test and benchmark. Each runs
// under its own WAYPOST_SERVICE_NAME, so the receiver tells who sent a request by its header names
// (X-<name>-Delivery).
import { spawn, type ChildProcess } from 'node:child_process';
import type { Received } from '../engine/receiver.js';

const ROOT = new URL('../../../', import.meta.url).pathname;

export interface WorkerProcess {
  name: string;
  child: ChildProcess;
  /** Resolves once the worker logged that it runs. */
  ready: Promise<void>;
  stop(): Promise<void>;
}

/**
 * `built`: bin/waypost.js (the build, as operators run it); otherwise the sources through tsx (tests need no build).
 * `env`: the worker's tuning (WAYPOST_…), on top of the database and the private targets a local receiver needs.
 */
export function startWorkerProcess(
  name: string, databaseUrl: string, options: { built?: boolean; env?: Record<string, string> } = {},
): WorkerProcess {
  const args = options.built ? ['bin/waypost.js'] : ['--import', 'tsx', 'src/cli/main.ts'];
  const child = spawn(process.execPath, [...args, 'serve', '--role', 'worker'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: databaseUrl,
      WAYPOST_ALLOW_PRIVATE_TARGETS: 'true', WAYPOST_SERVICE_NAME: name, LOG_LEVEL: 'info', ...options.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('waypost worker running')) resolve();
    });
    const early = (code: number | null) =>
      new Error(`worker ${name} exited (${code}) before it ran: ${out.slice(-500)}`);
    child.once('exit', (code) => reject(early(code)));
  });
  ready.catch(() => {}); // a caller that stops the worker early does not wait for it
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name, child, ready,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Which worker sent a request (by its service name in the header names), or null. */
export function sentBy(r: Received, names: readonly string[]): string | null {
  return names.find((n) => r.headers[`x-${n.toLowerCase()}-delivery`] !== undefined) ?? null;
}
