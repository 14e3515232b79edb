import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { createApiKey, deleteApiKey, keyPrefix, listApiKeys, PERMISSIONS, setApiKeyActive } from '../../api/keys.js';
import { output, withWaypost } from '../context.js';

const positiveInt = (v: string) => {
  if (!/^[1-9]\d{0,6}$/.test(v)) throw new InvalidArgumentError('expected a whole number of requests per window, 1 to 1000000');
  return Number(v);
};

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('Manage REST API keys');

  keys.command('create')
    .description('Create an API key; prints the key and its secret once (only a hash of the secret is stored)')
    .requiredOption('--label <label>', 'a name for the key, e.g. the application using it')
    .requiredOption('--permissions <list>', `comma-separated, from: ${PERMISSIONS.join(', ')}`)
    .option('--rate-limit <n>', 'requests per window for this key (default: WAYPOST_RATE_LIMIT)', positiveInt)
    .option('--json', 'machine-readable output')
    .action(async (opts: { label: string; permissions: string; rateLimit?: number; json?: boolean }) => {
      await withWaypost(async (wp) => {
        const permissions = opts.permissions.split(',').map((p) => p.trim()).filter(Boolean);
        const k = await createApiKey(wp.core, { label: opts.label, permissions, rateLimit: opts.rateLimit ?? null });
        output(opts.json, { id: k.id, key: k.key, secret: k.secret, permissions: k.permissions, label: k.label, rate_limit: k.rate_limit },
          () => `Created API key ${k.id} (${k.label})\n  Access-Token:  ${k.key}\n  Access-Secret: ${k.secret}\n  permissions:   ${k.permissions.join(', ')}\nThe secret is shown only now; store it safely.`);
      });
    });

  keys.command('list')
    .description('List API keys (key prefix only; secrets are never shown again)')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      await withWaypost(async (wp) => {
        const list = (await listApiKeys(wp.core)).map((k) => ({ ...k, key: keyPrefix(k.key) }));
        output(opts.json, list, () => list.length === 0 ? 'no API keys (create one with `waypost keys create`)'
          : list.map((k) => `${k.id}  ${k.active ? 'active  ' : 'disabled'}  ${k.key}  ${k.label}  [${k.permissions.join(', ')}]${k.rate_limit ? `  ${k.rate_limit}/window` : ''}  last used: ${k.last_used_at ?? 'never'}`).join('\n'));
      });
    });

  for (const [name, active] of [['disable', false], ['enable', true]] as const) {
    keys.command(`${name} <id>`)
      .description(`${active ? 'Re-enable' : 'Disable'} an API key (by id or key); takes effect on the next request`)
      .option('--json', 'machine-readable output')
      .action(async (id: string, opts: { json?: boolean }) => {
        await withWaypost(async (wp) => {
          const k = await setApiKeyActive(wp.core, id, active);
          output(opts.json, { ...k, key: keyPrefix(k.key) }, () => `API key ${k.id} is now ${k.active ? 'active' : 'disabled'}`);
        });
      });
  }

  keys.command('delete <id>')
    .description('Delete an API key (by id or key)')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { json?: boolean }) => {
      await withWaypost(async (wp) => {
        await deleteApiKey(wp.core, id);
        output(opts.json, { deleted: id }, () => `deleted API key ${id}`);
      });
    });
}
