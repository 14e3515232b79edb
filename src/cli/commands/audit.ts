// `waypost audit list`: the audit log of admin actions, newest first, with the console's and the admin API's filters
// (src/audit/read.ts). Read only: nothing in the CLI changes or deletes an entry.
import { Option, type Command } from 'commander';
import { ACTOR_TYPES, AUDIT_ACTIONS, type AuditEntryView } from '../../audit/views.js';
import type { Cli } from '../context.js';
import { table, wholeNumber } from '../table.js';

interface AuditListOptions {
  action?: string; actorType?: string; target?: string; since?: string; until?: string; after?: string;
  limit: number; json?: boolean;
}

/** `fields: name, url` / `grace_s: 0`: the details on one line. */
const detailsText = (e: AuditEntryView) => (e.details === null ? null : Object.entries(e.details)
  .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`).join('; '));

export function registerAudit(program: Command, cli: Cli): void {
  const audit = program.command('audit').description('The audit log of admin actions: list');

  audit.command('list')
    .description('Who changed webhooks, keys or settings, revealed or rotated a secret, recovered, erased or exported, '
      + 'newest first')
    .addOption(new Option('--action <action>', 'only this action').choices([...AUDIT_ACTIONS]))
    .addOption(new Option('--actor-type <type>', 'only actions from this door').choices([...ACTOR_TYPES]))
    .option('--target <id>', 'only actions on this webhook or key (wh_…, key_…)')
    .option('--since <time>', 'only entries at or after this ISO 8601 time, e.g. 2026-01-31T00:00:00Z')
    .option('--until <time>', 'only entries at or before this ISO 8601 time')
    .option('--after <id>', 'the next page: the `next` the previous page printed')
    .option('--limit <n>', 'how many (1-100)', wholeNumber(100), 25)
    .option('--json', 'machine-readable output: {items, next}')
    .action(async (opts: AuditListOptions) => {
      const { listAudit } = await import('../../audit/read.js'); // loaded to run, not for --help
      await cli.withWaypost(async (wp) => {
        const page = await listAudit(wp.core, {
          action: opts.action, actor_type: opts.actorType, target_id: opts.target, since: opts.since,
          until: opts.until, after: opts.after, perpage: opts.limit,
        });
        cli.output(opts.json, page, () => {
          const shown = table(
            ['TIME', 'ACTOR', 'ACTION', 'TARGET', 'DETAILS', 'IP'],
            page.items.map((e) => [
              e.at, `${e.actor} (${e.actor_type})`, e.action, e.target_id ?? e.target_type, detailsText(e), e.ip,
            ]),
            'No audit entries match.',
          );
          return page.next ? `${shown}\n(more: --after ${page.next})` : shown;
        });
      });
    });
}
