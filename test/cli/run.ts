// Runs the real CLI (`tsx src/cli/main.ts …`, what `npx waypost` runs after a build) in a child process, with a
// clean environment plus the variables a test gives, against a temporary SQLite file.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const MAIN = join(ROOT, 'src/cli/main.ts');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function tempSqliteUrl(): string {
  return `sqlite:${join(mkdtempSync(join(tmpdir(), 'waypost-cli-')), 'waypost.db')}`;
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'waypost-cli-'));
}

/** Starts the CLI; the caller may kill it. Environment: PATH/HOME only, then `env` (no stray DATABASE_URL). */
export function startCli(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(TSX, [MAIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: tsx runs the CLI in a grandchild, and killCli must reach it too
  });
}

/** Kills the CLI the hard way (no cleanup, like a crash or a power cut), grandchild included. */
export function killCli(child: ChildProcess): void {
  process.kill(-child.pid!, 'SIGKILL');
}

export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  const child = startCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => { stdout += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs a command with `--json`: fails (showing stderr) unless it exits 0, and returns what it printed, parsed. */
export async function runCliJson(args: string[], env: Record<string, string>): Promise<any> {
  const run = await runCli([...args, '--json'], env);
  if (run.code !== 0) throw new Error(`waypost ${args.join(' ')} --json exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}
