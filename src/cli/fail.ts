// How every CLI failure ends, in one place: the same exit code with or without --json; a one-line
// `waypost: …` on stderr, or with --json `{"error":{"code","message"}}` on stderr (stdout stays for results).
// Exit codes: 0 success, 1 the command failed (bad input, not found, refused, bad arguments), 2 invalid configuration.
import { CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { AppError, isConnectionError } from '../errors.js';

/** A failure the CLI itself detects (not a service error): a code for --json, and words for people. */
export class CliError extends Error {
  constructor(readonly code: string, message: string, readonly exitCode = 1) {
    super(message);
    this.name = 'CliError';
  }
}

export interface Failure {
  code: string;
  message: string;
  exitCode: number;
  /** For errors nobody anticipated: where it happened, shown to people (not in JSON) for a bug report to quote. */
  stack?: string;
}

const snake = (s: string) => s.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();

export function describeFailure(err: unknown): Failure {
  if (err instanceof ConfigError) {
    return { code: 'invalid_configuration', message: `invalid configuration: ${err.message}`, exitCode: 2 };
  }
  if (err instanceof AppError) return { code: err.code, message: err.detail, exitCode: 1 };
  if (err instanceof CliError) return { code: err.code, message: err.message, exitCode: err.exitCode };
  if (err instanceof CommanderError) {
    // A command group run without a subcommand (`waypost keys`): commander prints the help as the error.
    if (err.code === 'commander.help') {
      return { code: 'missing_command', message: 'give a subcommand (see --help)', exitCode: err.exitCode };
    }
    // "commander.invalidArgument" → "invalid_argument"; commander's own message starts with "error: ".
    const code = snake(err.code.replace(/^commander\./, ''));
    return { code, message: err.message.replace(/^error: /, ''), exitCode: err.exitCode };
  }
  const errno = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (errno?.code === 'EADDRINUSE') {
    const where = errno.port ? `${errno.address ?? ''}:${errno.port}` : 'the address';
    const message = `cannot listen on ${where}: something else is using it (another Waypost? choose another PORT)`;
    return { code: 'port_in_use', message, exitCode: 1 };
  }
  if (isConnectionError(err)) {
    const message = `cannot reach the database (DATABASE_URL): ${(err as Error).message}`;
    return { code: 'database_unavailable', message, exitCode: 1 };
  }
  const e = err instanceof Error ? err : new Error(String(err));
  const stack = e.stack?.split('\n').filter((l) => /^\s+at /.test(l)).join('\n');
  return { code: 'internal_error', message: `unexpected error: ${e.message}`, exitCode: 1, stack: stack || undefined };
}

/** Prints the failure on `stderr` and returns its exit code. */
export function reportFailure(err: unknown, json: boolean, stderr: NodeJS.WritableStream): number {
  const f = describeFailure(err);
  if (err instanceof CommanderError && !json) return f.exitCode; // commander has printed it, with the usage
  if (json) stderr.write(`${JSON.stringify({ error: { code: f.code, message: f.message } })}\n`);
  else stderr.write(`waypost: ${f.message}\n${f.stack ? `${f.stack}\n` : ''}`);
  return f.exitCode;
}

/** Whether --json was given before any `--` (used until commander has parsed the command's own options). */
export function jsonInArgs(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}
