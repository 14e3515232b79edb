// `waypost keys create|list|update|disable|enable|delete|usage`: the same service functions as the console's API Keys
// tab and its admin JSON API (src/api/keys.ts, src/api/usage.ts).
import type { Command } from 'commander';
import type { Config } from '../../config.js';
import { InvalidArgumentError } from 'commander';
import {
  createApiKey, deleteApiKey, keyPrefix, listApiKeys, PERMISSIONS, setApiKeyActive, updateApiKey, type ApiKeyInfo,
} from '../../api/keys.js';
import { cliActor } from '../../audit/record.js';
import { CliError } from '../fail.js';
import type { Cli } from '../context.js';
import { fields, table, wholeNumber } from '../table.js';

const RATE_LIMIT_HELP = 'requests per window (WAYPOST_RATE_LIMIT_WINDOW_S, default 60 s) for this key, 1-1000000';

const rateLimit = (v: string) => {
  if (!/^[1-9]\d{0,6}$/.test(v) || Number(v) > 1_000_000) {
    throw new InvalidArgumentError('Give a whole number of requests per window, 1 to 1000000.');
  }
  return Number(v);
};
// Not null for "default": commander stores a parser's null as ''.
const rateLimitOrDefault = (v: string): number | 'default' => (v === 'default' ? v : rateLimit(v));
const permissionList = (v: string) => v.split(',').map((p) => p.trim()).filter(Boolean);
/** The last `n` UTC days, oldest first, as YYYY-MM-DD (days without requests have no usage row). */
function utcDays(nowMs: number, n: number): string[] {
  return Array.from({ length: n }, (_, i) => new Date(nowMs - (n - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}
const shown = (k: ApiKeyInfo) => ({ ...k, key: keyPrefix(k.key) });

interface KeyUpdateOptions {
  label?: string;
  permissions?: string;
  rateLimit?: number | 'default';
  json?: boolean;
}

function describe(k: ApiKeyInfo, config: Config): string {
  const window = `per ${config.rateLimitWindowS} s`;
  return fields([
    ['id', k.id],
    ['label', k.label],
    ['key', keyPrefix(k.key)],
    ['state', k.active ? 'active' : 'disabled'],
    ['permissions', k.permissions.join(', ')],
    ['rate limit', k.rate_limit === null ? `the default, ${config.rateLimit} requests ${window} (WAYPOST_RATE_LIMIT)`
      : `${k.rate_limit} requests ${window}`],
    ['created', k.created_at],
    ['last used', k.last_used_at ?? 'never'],
  ]);
}

export function registerKeys(program: Command, cli: Cli): void {
  const keys = program.command('keys')
    .description('Manage REST API keys: create, list, update, disable, enable, delete, usage');

  keys.command('create')
    .description('Create an API key; prints the key and its secret once (only a hash of the secret is stored)')
    .requiredOption('--label <label>', 'a name for the key, e.g. the application using it')
    .requiredOption('--permissions <list>', `comma-separated, from: ${PERMISSIONS.join(', ')}`)
    .option('--rate-limit <n>', `${RATE_LIMIT_HELP} (default: WAYPOST_RATE_LIMIT)`, rateLimit)
    .option('--json', 'machine-readable output')
    .action(async (opts: { label: string; permissions: string; rateLimit?: number; json?: boolean }) => {
      await cli.withWaypost(async (wp) => {
        const permissions = permissionList(opts.permissions);
        const k = await createApiKey(wp.core, { label: opts.label, permissions, rateLimit: opts.rateLimit ?? null },
          cliActor());
        const shown = {
          id: k.id, key: k.key, secret: k.secret, permissions: k.permissions, label: k.label, rate_limit: k.rate_limit,
        };
        cli.output(opts.json, shown,
          () => `Created API key ${k.id} (${k.label})\n  Access-Token:  ${k.key}\n  Access-Secret: ${k.secret}\n`
            + `  permissions:   ${k.permissions.join(', ')}\nThe secret is shown only now; store it safely.`);
      });
    });

  keys.command('list')
    .description('List API keys (key prefix only; secrets are never shown again)')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      await cli.withWaypost(async (wp) => {
        const list = (await listApiKeys(wp.core)).map(shown);
        cli.output(opts.json, list, () => table(
          ['ID', 'STATE', 'KEY', 'LABEL', 'PERMISSIONS', 'RATE LIMIT', 'LAST USED'],
          list.map((k) => [
            k.id, k.active ? 'active' : 'disabled', k.key, k.label, k.permissions.join(','), k.rate_limit ?? 'default',
            k.last_used_at ?? 'never',
          ]),
          'No API keys yet. Create one with `waypost keys create --label NAME --permissions bookings.list`.',
        ));
      });
    });

  keys.command('update <id>')
    .description('Change a key\'s label, permissions or rate limit (by id or key); it keeps its secret')
    .option('--label <label>', 'new label')
    .option('--permissions <list>', `comma-separated, replacing the current ones, from: ${PERMISSIONS.join(', ')}`)
    .option('--rate-limit <n>', `${RATE_LIMIT_HELP}, or "default" for WAYPOST_RATE_LIMIT`, rateLimitOrDefault)
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: KeyUpdateOptions) => {
      if (opts.label === undefined && opts.permissions === undefined && opts.rateLimit === undefined) {
        throw new CliError('nothing_to_change', 'give --label, --permissions and/or --rate-limit');
      }
      await cli.withWaypost(async (wp) => {
        const k = await updateApiKey(wp.core, id, {
          label: opts.label,
          permissions: opts.permissions === undefined ? undefined : permissionList(opts.permissions),
          rateLimit: opts.rateLimit === 'default' ? null : opts.rateLimit,
        }, cliActor());
        cli.output(opts.json, shown(k),
          () => `Updated API key ${k.id}; the next request with it sees the change.\n${describe(k, wp.config)}`);
      });
    });

  for (const [name, active] of [['disable', false], ['enable', true]] as const) {
    keys.command(`${name} <id>`)
      .description(`${active ? 'Re-enable' : 'Disable'} an API key (by id or key); takes effect on the next request`)
      .option('--json', 'machine-readable output')
      .action(async (id: string, opts: { json?: boolean }) => {
        await cli.withWaypost(async (wp) => {
          const k = await setApiKeyActive(wp.core, id, active, cliActor());
          const now = k.active ? 'active' : 'disabled';
          cli.output(opts.json, shown(k), () => `API key ${k.id} (${k.label}) is now ${now}.`);
        });
      });
  }

  keys.command('delete <id>')
    .description('Delete an API key (by id or key)')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { json?: boolean }) => {
      await cli.withWaypost(async (wp) => {
        await deleteApiKey(wp.core, id, cliActor());
        cli.output(opts.json, { deleted: id }, () => `Deleted API key ${id}.`);
      });
    });

  keys.command('usage [id]')
    .description('Requests, 4xx errors and 429s per key over the last days (UTC); with an id, that key day by day')
    .option('--days <n>', 'how many days, today included (1-90)', wholeNumber(90), 7)
    .option('--json', 'machine-readable output: {days, keys: [{key_id, label, days, totals}]}')
    .action(async (id: string | undefined, opts: { days: number; json?: boolean }) => {
      await cli.withWaypost(async (wp) => {
        // A running server writes its counts every few seconds, so the last seconds may not be in yet.
        const { usageByKey } = await import('../../api/usage.js'); // loaded to run, not for --help
        let usage = await usageByKey(wp.core, opts.days);
        if (id !== undefined) {
          const key = (await listApiKeys(wp.core)).find((k) => k.id === id || k.key === id);
          if (!key) throw new CliError('not_found', `API key ${id} was not found`);
          usage = usage.filter((u) => u.key_id === key.id);
        }
        cli.output(opts.json, { days: opts.days, keys: usage }, () => {
          if (id !== undefined) {
            const u = usage[0]!;
            const byDay = new Map(u.days.map((d) => [d.day, d]));
            const rows = utcDays(wp.core.clock.now(), opts.days).map((day) => {
              const d = byDay.get(day);
              return [day, d?.requests ?? 0, d?.client_errors ?? 0, d?.rate_limited ?? 0];
            });
            const { requests, client_errors: errors, rate_limited: limited } = u.totals;
            const perDay = table(['DAY', 'REQUESTS', '4XX', '429'], [...rows, ['total', requests, errors, limited]]);
            return `${u.label} (${u.key_id}), last ${opts.days} days:\n${perDay}`;
          }
          return `Last ${opts.days} days:\n${table(
            ['KEY', 'LABEL', 'REQUESTS', '4XX', '429'],
            usage.map((u) => [u.key_id, u.label, u.totals.requests, u.totals.client_errors, u.totals.rate_limited]),
            'No API keys yet.',
          )}`;
        });
      });
    });
}
