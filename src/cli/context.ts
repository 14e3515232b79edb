// Opens Waypost for a CLI command (same configuration as `serve`), runs it, and closes it.
import { createWaypost, type Waypost } from '../sdk.js';
import { createLogger } from '../log.js';
import { loadConfig } from '../config.js';

/**
 * Opens Waypost quietly (logs to stderr at warn level), runs `fn`, closes. `databaseUrl` opens that database instead
 * of DATABASE_URL's (`waypost demo`'s own).
 */
export async function withWaypost<T>(
  fn: (wp: Waypost) => Promise<T>, options: { migrate?: boolean; databaseUrl?: string } = {},
): Promise<T> {
  const env = options.databaseUrl ? { ...process.env, DATABASE_URL: options.databaseUrl } : process.env;
  loadConfig(env); // validate first, so a bad value (even LOG_LEVEL, used just below) stops with a message naming it
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', process.stderr);
  const wp = await createWaypost({ logger, migrate: options.migrate, env });
  try {
    return await fn(wp);
  } finally {
    await wp.close();
  }
}

/** Prints a value as JSON (with --json) or via a human formatter. */
export function output(json: boolean | undefined, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}
