// The payload filter from the command line: `--filter '<json>'` on `webhooks create|update` (`none` clears it),
// how `show` prints it, and `waypost webhooks preview-filter`, which tries a filter on the last 50 real events.
import { InvalidArgumentError, type Command } from 'commander';
import { EVENT_TYPE_NAMES, isEventType } from '../../webhooks/catalog.js';
import { previewFromBody } from '../../webhooks/filters/preview.js';
import { getWebhook, type WebhookView } from '../../webhooks/manage.js';
import type { Cli } from '../context.js';
import { CliError } from '../fail.js';
import { table } from '../table.js';

export const FILTER_HELP = 'a payload filter as JSON, e.g. \'{"field":"data.currency","eq":"EUR"}\' '
  + '(docs/webhooks.md "Filters")';

/**
 * `--filter <json>`: parsed here so bad JSON is a clear error; `none` (update) removes the filter (returned as
 * 'none': commander would store a parser's null as ''; filterInput turns it into null).
 */
export function filterOption(value: string): unknown {
  if (value.trim().toLowerCase() === 'none') return 'none';
  try {
    return JSON.parse(value) as unknown;
  } catch (err) {
    throw new InvalidArgumentError(`not JSON (${(err as Error).message}); quote it, e.g. `
      + '--filter \'{"field":"data.status","in":["booked","completed"]}\'');
  }
}

export const filterInput = (value: unknown) => (value === 'none' ? null : value);

/** The `filter` lines of `webhooks show`: the filter, and a note when its preview matched none of the events. */
export function filterFields(w: WebhookView): Array<[string, string]> {
  if (w.filter === null) return [];
  const p = w.filter_preview;
  const note = p === null ? null : p.total === 0 ? 'no stored events of its types to try it on yet'
    : p.matched === 0 ? `matched none of the last ${p.total} events when saved: nothing may be sent`
      : `would have sent ${p.matched} of the last ${p.total} events when saved`;
  return [['filter', JSON.stringify(w.filter)], ...(note ? [['filter preview', note] as [string, string]] : [])];
}

export function registerPreviewFilter(webhooks: Command, cli: Cli): void {
  webhooks.command('preview-filter [id]')
    .description('Try a filter on the last 50 real events of the event types: how many it would have sent')
    .option('--events <types>', 'comma-separated event types, or "all" (default: the webhook\'s)')
    .option('--filter <json>', `${FILTER_HELP} (default: the webhook's)`, filterOption)
    .option('--json', 'machine-readable output')
    .action(async (id: string | undefined, opts: { events?: string; filter?: unknown; json?: boolean }) => {
      if (id === undefined && (opts.events === undefined || opts.filter === undefined)) {
        throw new CliError('missing_argument', 'give a webhook id, or --events and --filter');
      }
      await cli.withWaypost(async (wp) => {
        const hook = id === undefined ? null : await getWebhook(wp.core, id);
        const events = opts.events === undefined ? hook!.events : opts.events.trim() === 'all'
          ? [...EVENT_TYPE_NAMES] : opts.events.split(',').map((s) => s.trim()).filter(Boolean);
        const filter = opts.filter === undefined ? hook!.filter : filterInput(opts.filter);
        const preview = await previewFromBody(wp.core, { events, filter });
        const types = events.filter(isEventType).join(', ');
        cli.output(opts.json, preview, () => [
          preview.total === 0 ? `No stored events of ${types} to try it on yet.`
            : `Would have sent ${preview.matched} of the last ${preview.total} events (${types}).`,
          ...(preview.total === 0 ? [] : ['', table(['EVENT', 'TYPE', 'CREATED', 'SENT'],
            preview.events.map((e) => [e.id, e.type, e.created_at, e.matched ? 'yes' : 'no']), '')]),
        ].join('\n'));
      });
    });
}
