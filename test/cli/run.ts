// Runs the CLI for tests, with a clean environment plus the variables a test gives, against a temporary SQLite file:
// runCli/runCliJson in this process through run() (src/cli/run.ts: the same parsing, output and exit codes as the
// process, without a second or so of tsx start-up per call); runCliProcess/startCli as a real process
// (`tsx src/cli/main.ts …`) where the process itself is tested: killed, signalled, or its output piped.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { run } from '../../src/cli/run.js';

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

/** PATH/HOME only, then `env`: no stray DATABASE_URL (or anything else) from the test's own environment. */
const cleanEnv = (env: Record<string, string>) =>
  ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env });

/** Starts the CLI as a process; the caller may kill it. */
export function startCli(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(TSX, [MAIN, ...args], {
    cwd: ROOT,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: tsx runs the CLI in a grandchild, and killCli must reach it too
  });
}

/** Kills the CLI the hard way (no cleanup, like a crash or a power cut), grandchild included. */
export function killCli(child: ChildProcess): void {
  process.kill(-child.pid!, 'SIGKILL');
}

/** Runs the CLI as a process to its end: its exit code and what it wrote to the pipes. */
export function runCliProcess(args: string[], env: Record<string, string>): Promise<CliResult> {
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

/** A stream that keeps what is written to it (not a terminal, like a pipe). */
function capture(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString() };
}

/** Runs the CLI in this process; `input` is its stdin (none: empty, as /dev/null). */
export async function runCli(args: string[], env: Record<string, string>, input = ''): Promise<CliResult> {
  const stdout = capture();
  const stderr = capture();
  const stdin = Readable.from(input ? [input] : []);
  const code = await run(args, { stdout: stdout.stream, stderr: stderr.stream, env: cleanEnv(env), stdin });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** Runs a command with `--json`: fails (showing stderr) unless it exits 0, and returns what it printed, parsed. */
export async function runCliJson(args: string[], env: Record<string, string>): Promise<any> {
  const result = await runCli([...args, '--json'], env);
  if (result.code !== 0) throw new Error(`waypost ${args.join(' ')} --json exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}
