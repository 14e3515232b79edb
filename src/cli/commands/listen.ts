// `waypost listen --forward-to http://localhost:3000/hooks`: follows the REST API's event feed with long polls and
// POSTs each event to a local URL exactly as a webhook arrives, signed with a local secret kept across runs. For
// developing a receiver on a laptop: it needs no public address, only an API key with events.list.
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { apiRoot, loadConfig } from '../../config.js';
import type { Cli } from '../context.js';
import { CliError } from '../fail.js';

interface ListenOptions {
  forwardTo?: string;
  url?: string;
  key?: string;
  secret?: string;
  events?: string;
  since?: string;
  printJson?: boolean;
  state?: string;
  wait: number;
}

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since`: an ISO 8601 time, or how long ago (`30m`, `2h`, `7d`). */
export const sinceTime = (now: () => number) => (value: string): string => {
  const ago = /^(\d{1,5})([mhd])$/.exec(value);
  const ms = ago ? now() - Number(ago[1]) * UNITS[ago[2]] : Date.parse(value);
  if (!Number.isFinite(ms) || (!ago && !/^\d{4}-\d{2}-\d{2}/.test(value))) {
    throw new InvalidArgumentError('Give an ISO 8601 time (2026-11-28T09:00:00Z) or how long ago (30m, 2h, 7d).');
  }
  return new Date(ms).toISOString();
};

const httpUrl = (value: string): string => {
  let url: URL;
  try { url = new URL(value); } catch { throw new InvalidArgumentError('Give an http(s) URL.'); }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('Give an http(s) URL.');
  return url.href.replace(/\/+$/, '');
};

const waitSeconds = (value: string): number => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 30) throw new InvalidArgumentError('Give 1 to 30 seconds.');
  return n;
};

export function registerListen(program: Command, cli: Cli): void {
  program.command('listen')
    .description('Forward the event feed to a local URL, signed as webhooks are (for developing a receiver)')
    .option('--forward-to <url>', 'where to POST each event, e.g. http://localhost:3000/hooks', httpUrl)
    .option('--url <url>', 'the Waypost server (default: WAYPOST_BASE_URL)', httpUrl)
    .option('--key <token>', 'an API key with events.list (default: WAYPOST_API_KEY)')
    .option('--secret <secret>', "that key's secret (default: WAYPOST_API_SECRET)")
    .option('--events <types>', 'only these types, comma-separated; wildcards like booking.*')
    .option('--since <time>', 'replay from a time (ISO 8601, or 30m / 2h / 7d ago) instead of resuming',
      sinceTime(Date.now))
    .option('--print-json', 'print each event as a JSON line instead of forwarding it')
    .option('--state <file>', 'where the secret and position are kept (default: ~/.config/waypost/listen.json)')
    .option('--wait <seconds>', 'how long each long poll waits, 1-30', waitSeconds, 25)
    .action(async (opts: ListenOptions) => {
      if (!opts.forwardTo && !opts.printJson) {
        throw new CliError('missing_target', 'give --forward-to <url> (or --print-json to only print the events)');
      }
      const { followFeed } = await import('../listen/follow.js'); // loaded to run, not for --help
      const config = loadConfig(cli.io.env);
      const key = opts.key ?? cli.io.env.WAYPOST_API_KEY;
      const secret = opts.secret ?? cli.io.env.WAYPOST_API_SECRET;
      if (!key || !secret) {
        throw new CliError('missing_credentials',
          'give --key and --secret (or WAYPOST_API_KEY and WAYPOST_API_SECRET): an API key with events.list');
      }
      await followFeed(cli, {
        server: opts.url ?? config.baseUrl, apiRoot: apiRoot(config), key, secret, types: opts.events,
        since: opts.since ?? null, forwardTo: opts.forwardTo ?? null, printJson: Boolean(opts.printJson),
        statePath: opts.state, waitS: opts.wait, serviceName: config.serviceName, version: config.version,
      });
    });
}
