// What a CLI command works with: the streams and environment of one run (`CliIo`), and Waypost opened with them.
import type { EventEmitter } from 'node:events';
import type { Waypost } from '../sdk.js';
import type { Core } from '../core.js';
import { loadConfig } from '../config.js';
import { cliActor, recordAudit, type AuditEntry } from '../audit/record.js';

/** An output stream; `isTTY` and `columns` decide how progress lines and help are drawn. */
export type CliOutput = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** Where one run of the CLI reads and writes: the process's own (src/cli/main.ts), or a test's. */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  /** The configuration's environment, as process.env would be. */
  env: Record<string, string | undefined>;
  /** Where a password is read when not given (default: nothing, as from /dev/null). */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  /** Emits 'SIGINT'/'SIGTERM' to stop a running `serve` (main.ts passes `process`); without it serve runs on. */
  signals?: EventEmitter;
}

/**
 * One run's context, handed to each command group when run() registers it. Passed down rather than held in an
 * AsyncLocalStorage: run() builds a fresh program per call, so each action's closure holds its own run's io, and
 * two runs at once (tests do this) cannot see each other's, with nothing implicit to follow.
 */
export class Cli {
  /** Set by a command that finished but must still exit non-zero (an import with no valid line). */
  exitCode = 0;

  constructor(readonly io: CliIo) {}

  /**
   * Opens Waypost quietly (logs to stderr at warn level), runs `fn`, closes. `databaseUrl` opens that database
   * instead of DATABASE_URL's (`waypost demo`'s own).
   */
  async withWaypost<T>(
    fn: (wp: Waypost) => Promise<T>, options: { migrate?: boolean; databaseUrl?: string } = {},
  ): Promise<T> {
    const env = options.databaseUrl ? { ...this.io.env, DATABASE_URL: options.databaseUrl } : this.io.env;
    loadConfig(env); // validate first, so a bad value (even LOG_LEVEL, used just below) stops with a message naming it
    // Loaded here, not at the top: `waypost --help` and argument errors need none of Waypost (the server, both
    // database drivers, Redis, SMTP), and loading it all was most of their time.
    const [{ createWaypost }, { createLogger }] = await Promise.all([import('../sdk.js'), import('../log.js')]);
    const logger = createLogger(this.io.env.LOG_LEVEL ?? 'warn', this.io.stderr);
    const wp = await createWaypost({ logger, migrate: options.migrate, env });
    try {
      return await fn(wp);
    } finally {
      await wp.close();
    }
  }

  /** Records an admin action this run did, once it succeeded, in the audit log (actor: the OS user, type 'cli'). */
  audit(core: Core, entry: AuditEntry): Promise<void> {
    return recordAudit(core, cliActor(), entry);
  }

  /** Prints a value as JSON (with --json) or via a human formatter. */
  output(json: boolean | undefined, value: unknown, human: () => string): void {
    this.io.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
  }
}
