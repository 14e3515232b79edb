// Real Waypost processes for the scale-out suites: `waypost serve` children (tsx, so no build is needed), a
// private redis-server that a test may kill and restart, and the waiting they need.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { Role } from '../../src/config.js';
import { CI } from './services.js';

export const REDIS_SERVER = '/usr/bin/redis-server';

/**
 * A process's children (none once it has exited). bin/waypost.js runs `serve` and `import` as its child: that
 * child is the process to measure or to expect gone.
 */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Whether a private redis-server can be started (skips locally with a message; required under CI=true). */
export function hasRedisServer(suite: string): boolean {
  if (existsSync(REDIS_SERVER)) return true;
  if (CI) throw new Error(`${REDIS_SERVER} is required when CI=true`);
  console.warn(`\n⚠ SKIPPING ${suite}: no ${REDIS_SERVER}\n`);
  return false;
}

/** A redis-server of its own on `port`, nothing saved (restarting it empties it, like a crash of a cache). */
export function startRedis(port: number): ChildProcess {
  return spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' });
}

export interface Child {
  name: string;
  proc: ChildProcess;
  output: string[]; // stdout (JSON log lines) and stderr (a crash's stack), for failure messages
}

/** `waypost serve --role <role>` with `env` over this process's environment (an `undefined` value unsets it). */
export function startServe(name: string, role: Role, env: Record<string, string | undefined>, args: string[] = [])
  : Child {
  const merged: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'error', ...env };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--role', role, ...args], {
    cwd: process.cwd(),
    env: merged,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  proc.stdout!.on('data', (c: Buffer) => { output.push(String(c)); });
  proc.stderr!.on('data', (c: Buffer) => { output.push(String(c)); });
  return { name, proc, output };
}

export const alive = (c: Child) => c.proc.exitCode === null && c.proc.signalCode === null;

export const exited = (p: ChildProcess) => new Promise<void>((resolve) => {
  if (p.exitCode !== null || p.signalCode !== null) resolve();
  else p.once('exit', () => resolve());
});

/** SIGKILLs every child still running and waits for each to be gone. */
export async function killAll(children: readonly Child[]): Promise<void> {
  for (const c of children) {
    if (!alive(c)) continue;
    c.proc.kill('SIGKILL');
    await exited(c.proc);
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 100 ms; throws naming `what` (and `why()`) after `timeoutMs`. */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000, why = () => '')
  : Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${why()}`);
    await sleep(100);
  }
}

/** Which children are gone, with the end of what they printed (an unhandled error's stack). */
export const processReport = (children: readonly Child[]) => children.map((c) => (alive(c) ? `${c.name}: alive`
  : `${c.name}: exited ${c.proc.exitCode ?? c.proc.signalCode}\n${c.output.join('').slice(-1500)}`)).join('\n');

/** The end of every child's output, for a start that timed out. */
export const startReport = (children: readonly Child[]) => children
  .map((c) => `${c.name} (${alive(c) ? 'alive' : 'exited'}):\n${c.output.join('').slice(-800)}`).join('\n');

/** Error lines the children logged (pino level 50 and up), to explain an unexpected status. */
export const loggedErrors = (children: readonly Child[]) => children.flatMap((c) => c.output.join('').split('\n')
  .filter((l) => /"level":[56]0/.test(l)).map((l) => `${c.name}: ${l.slice(0, 600)}`)).slice(0, 10).join('\n');

/** Prometheus exposition text as sample values by series, e.g. `waypost_redis_up` → 1. */
export function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}
