// `waypost webhooks create|list|show|update|enable|disable|delete|test|secret|rotate-secret|preview-filter|events`:
// the same service functions as the console and its admin JSON API (src/webhooks/manage.ts).
import type { Command } from 'commander';
import {
  createWebhook, deleteWebhook, DISABLED_BY_ADMIN, disableWebhookByAdmin, getWebhook, listWebhooks,
  regenerateSecret, revealSecret, updateWebhook, type WebhookView,
} from '../../webhooks/manage.js';
import { cliActor } from '../../audit/record.js';
import { parseGrace, rotateSecret } from '../../webhooks/rotation.js';
import type { MissedWhileDisabled } from '../../webhooks/recover/enable.js';
import { EVENT_TYPE_NAMES, EVENT_TYPES } from '../../webhooks/catalog.js';
import type { Cli } from '../context.js';
import { CliError } from '../fail.js';
import { fields, table } from '../table.js';
import { FILTER_HELP, filterFields, filterInput, filterOption, registerPreviewFilter } from './webhook-filters.js';
import {
  eventList, MAX_PER_SECOND_HELP, maxPerSecond, ordering, ORDERING_HELP, payload, PAYLOAD_HELP, perSecondInput,
} from './webhook-options.js';

/** "at most 20/s", or "none". */
const limit = (w: WebhookView) => (w.max_per_second === null ? 'none' : `at most ${w.max_per_second}/s`);

/** Disabled by Waypost after failures (the console shows it in red), as opposed to switched off by a person. */
const autoDisabled = (w: WebhookView) =>
  !w.active && w.disabled_reason !== null && w.disabled_reason !== DISABLED_BY_ADMIN;

/** After `enable`: what it missed while off, and the command that sends it (recover never sends anything twice). */
function missedLines(w: WebhookView & { missed_while_disabled: MissedWhileDisabled | null }): string[] {
  const m = w.missed_while_disabled;
  if (!m) return [];
  const recover = `waypost deliveries recover --webhook ${w.id} --since ${m.since}`;
  if (m.events === 0) {
    return [`No events were missed while it was off (${m.since} to ${m.until}). To redeliver what the disable `
      + `cancelled, run: ${recover}`];
  }
  const n = `${m.more ? 'More than ' : ''}${m.events} ${m.events === 1 && !m.more ? 'event' : 'events'}`;
  return [`${n} happened while it was off (${m.since} to ${m.until}) and ${m.events === 1 && !m.more ? 'was' : 'were'}`
    + ' not sent.', `Send them, with what the disable cancelled, once: ${recover}`];
}

function state(w: WebhookView): string {
  if (w.active) return 'active';
  // Reasons are whole sentences; this line is not, so their final period goes.
  if (autoDisabled(w)) return `disabled by Waypost: ${w.disabled_reason!.replace(/\.$/, '')}`;
  return w.disabled_reason === DISABLED_BY_ADMIN ? 'disabled by an admin' : 'disabled';
}

/** "failed 500 2026-… (dlv_…)" for `show`; lists give just the outcome, "failed 500". */
function lastDelivery(w: WebhookView): string | null {
  const d = w.last_delivery;
  return d ? [d.status, d.last_status, d.created_at, `(${d.id})`].filter((p) => p !== null).join(' ') : null;
}

function lastOutcome(w: WebhookView): string | null {
  const d = w.last_delivery;
  return d ? [d.status, d.last_status].filter((p) => p !== null).join(' ') : null;
}

function describe(w: WebhookView & { secret?: string }): string {
  return fields([
    ['id', w.id],
    ['name', w.name],
    ['url', w.url],
    ['events', w.events.join(', ')],
    ['state', state(w)],
    ['throttle', limit(w)],
    ...filterFields(w),
    ['ordering', w.ordering === 'record' ? 'record (one record\'s events in commit order)' : 'none'],
    ['payload', w.payload === 'minimal' ? 'minimal (record ids and API link, no personal fields)' : 'full'],
    ...(w.previous_secret_expires_at
      ? [['previous secret', `also signs until ${w.previous_secret_expires_at}`] as [string, string]] : []),
    ...(w.secret ? [['secret', w.secret] as [string, string]] : []),
    ['last delivery', lastDelivery(w)],
    ['created', w.created_at],
    ['updated', w.updated_at],
    ...(w.warning ? [['warning', w.warning] as [string, string]] : []),
  ]);
}

interface CreateOptions {
  name: string; url: string; events: string; inactive?: boolean; maxPerSecond?: number | 'none'; json?: boolean;
  filter?: unknown;
  ordering?: string;
  payload?: string;
}

interface UpdateOptions {
  name?: string; url?: string; events?: string; maxPerSecond?: number | 'none'; json?: boolean; filter?: unknown;
  ordering?: string;
  payload?: string;
}

export function registerWebhooks(program: Command, cli: Cli): void {
  const webhooks = program.command('webhooks')
    .description('Manage webhooks: create, list, show, update, enable, disable, delete, test, secret, rotate-secret, '
      + 'events');

  webhooks.command('create')
    .description('Create a webhook; prints it with its signing secret')
    .requiredOption('--name <name>', 'a name for people (1-100 characters)')
    .requiredOption('--url <url>', 'the receiver, an absolute https:// URL')
    .requiredOption('--events <types>', 'comma-separated event types, e.g. booking.created,booking.updated, or "all"')
    .option('--inactive', 'create it disabled (nothing is sent until `waypost webhooks enable`)')
    .option('--max-per-second <n>', `${MAX_PER_SECOND_HELP}; default: no limit`, maxPerSecond)
    .option('--filter <json>', `${FILTER_HELP}; default: every event of its types`, filterOption)
    .option('--ordering <mode>', `${ORDERING_HELP} (default)`, ordering)
    .option('--payload <kind>', `${PAYLOAD_HELP} (default)`, payload)
    .option('--json', 'machine-readable output')
    .action(async (opts: CreateOptions) => {
      await cli.withWaypost(async (wp) => {
        const input = {
          name: opts.name, url: opts.url, events: eventList(opts.events), active: !opts.inactive,
          max_per_second: perSecondInput(opts.maxPerSecond), filter: filterInput(opts.filter), ordering: opts.ordering,
          payload: opts.payload,
        };
        const created = await createWebhook(wp.core, input, cliActor());
        cli.output(opts.json, created, () => `${describe(created)}\n\nKeep the secret: receivers verify `
          + `X-${wp.config.serviceName}-Signature with it (\`waypost webhooks secret ${created.id}\` shows it again).`);
      });
    });

  webhooks.command('list')
    .description('List webhooks with their state and last delivery')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      await cli.withWaypost(async (wp) => {
        const all = await listWebhooks(wp.core);
        cli.output(opts.json, all, () => table(
          ['ID', 'NAME', 'STATE', 'EVENTS', 'LIMIT', 'LAST DELIVERY', 'URL'],
          all.map((w) => [
            w.id, w.name, w.active ? 'active' : autoDisabled(w) ? 'auto-disabled' : 'disabled',
            w.events.length === EVENT_TYPE_NAMES.length ? 'all' : w.events.join(','),
            w.max_per_second === null ? null : `${w.max_per_second}/s`,
            lastOutcome(w),
            w.url,
          ]),
          'No webhooks yet. Create one with `waypost webhooks create --name N --url U --events booking.created`.',
        ));
      });
    });

  webhooks.command('show <id>').alias('get')
    .description('Show one webhook (without its secret)')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { json?: boolean }) => {
      await cli.withWaypost(async (wp) => {
        const w = await getWebhook(wp.core, id);
        cli.output(opts.json, w, () => describe(w));
      });
    });

  webhooks.command('update <id>')
    .description('Change a webhook\'s name, URL, events, throttle, filter, ordering or payload (its delivery history '
      + 'is kept)')
    .option('--name <name>', 'new name')
    .option('--url <url>', 'new receiver URL')
    .option('--events <types>', 'new comma-separated event types (replace the current ones), or "all"')
    .option('--max-per-second <n>', `${MAX_PER_SECOND_HELP}, or 0 / "none" to remove the limit`, maxPerSecond)
    .option('--filter <json>', `${FILTER_HELP}, or "none" to remove it`, filterOption)
    .option('--ordering <mode>', ORDERING_HELP, ordering)
    .option('--payload <kind>', PAYLOAD_HELP, payload)
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: UpdateOptions) => {
      const given = [opts.name, opts.url, opts.events, opts.maxPerSecond, opts.filter, opts.ordering, opts.payload];
      if (given.every((o) => o === undefined)) {
        const message = 'give --name, --url, --events, --max-per-second, --filter, --ordering and/or --payload '
          + '(enable and disable are commands)';
        throw new CliError('nothing_to_change', message);
      }
      await cli.withWaypost(async (wp) => {
        const events = opts.events === undefined ? undefined : eventList(opts.events);
        const input = {
          name: opts.name, url: opts.url, events, max_per_second: perSecondInput(opts.maxPerSecond),
          filter: filterInput(opts.filter), ordering: opts.ordering, payload: opts.payload,
        };
        const w = await updateWebhook(wp.core, id, input, cliActor());
        cli.output(opts.json, w, () => describe(w));
      });
    });

  webhooks.command('enable <id>')
    .description('Re-enable a webhook; says how many events it missed while off and the recover command that sends '
      + 'them (with the deliveries the disable cancelled)')
    .option('--json', 'machine-readable output (with missed_while_disabled)')
    .action(async (id: string, opts: { json?: boolean }) => {
      const { enableAndCountMissed } = await import('../../webhooks/recover/enable.js');
      await cli.withWaypost(async (wp) => {
        const w = await enableAndCountMissed(wp.core, id, cliActor());
        cli.output(opts.json, w, () => [`Webhook ${w.id} (${w.name}) enabled.`, ...missedLines(w)].join('\n'));
      });
    });

  webhooks.command('disable <id>')
    .description('Disable a webhook; its pending deliveries are cancelled')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { json?: boolean }) => {
      await cli.withWaypost(async (wp) => {
        const w = await disableWebhookByAdmin(wp.core, id, cliActor());
        cli.output(opts.json, w, () => `Webhook ${w.id} (${w.name}) disabled.`);
      });
    });

  webhooks.command('delete <id>')
    .description('Delete a webhook; pending deliveries are cancelled, the delivery log is kept')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { json?: boolean }) => {
      await cli.withWaypost(async (wp) => {
        await deleteWebhook(wp.core, id, cliActor());
        cli.output(opts.json, { id, deleted: true }, () => `Webhook ${id} deleted.`);
      });
    });

  webhooks.command('test <id>')
    .description('Send a sample event (marked test) now and print the receiver\'s answer')
    .option('--event <type>', 'which event type to sample (default: the webhook\'s first)')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { event?: string; json?: boolean }) => {
      // Loaded when used: sending brings the delivery engine (HTTP client, mailer, queues), nothing else here needs it.
      const { sendTestEvent } = await import('../../webhooks/test-send.js');
      await cli.withWaypost(async (wp) => {
        const result = await sendTestEvent(wp.core, id, opts.event);
        await cli.audit(wp.core, { action: 'webhook.tested', targetType: 'webhook', targetId: id,
          details: { event_type: result.event_type } });
        cli.output(opts.json, result, () => [
          fields([
            ['result', result.success ? 'success' : 'failed'],
            ['event', `${result.event_type} (${result.event_id}, test)`],
            ['delivery', result.delivery_id],
            ['status', result.response?.status ?? null],
            ['duration', `${result.duration_ms} ms`],
            ...(result.error ? [['error', result.error] as [string, string]] : []),
          ]),
          ...(result.response ? ['', result.response.body === '' ? '(empty body)' : result.response.body] : []),
        ].join('\n'));
        if (!result.success) cli.exitCode = 1;
      });
    });

  webhooks.command('secret <id>')
    .description('Print the webhook\'s signing secret; --rotate replaces it first')
    .option('--rotate', 'generate a new secret; the old one stops working at once (for a leaked secret)')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { rotate?: boolean; json?: boolean }) => {
      await cli.withWaypost(async (wp) => {
        const { secret } = opts.rotate ? await regenerateSecret(wp.core, id, cliActor())
          : await revealSecret(wp.core, id);
        if (!opts.rotate) {
          await cli.audit(wp.core, { action: 'webhook.secret_revealed', targetType: 'webhook', targetId: id });
        }
        cli.output(opts.json, { id, secret }, () => secret);
      });
    });

  webhooks.command('rotate-secret <id>')
    .description('Make a new signing secret; the old one keeps signing beside it for a grace period')
    .option('--grace <duration>', 'how long the old secret still signs: 0 to 7d, e.g. 30m, 24h, 7d', '24h')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { grace: string; json?: boolean }) => {
      const grace = parseGrace(opts.grace);
      await cli.withWaypost(async (wp) => {
        const r = await rotateSecret(wp.core, id, grace, cliActor());
        cli.output(opts.json, { id, ...r }, () => fields([
          ['secret', r.secret],
          ['old secret', r.previous_secret_expires_at
            ? `still signs until ${r.previous_secret_expires_at}` : 'stopped signing now (grace 0)'],
        ]) + (r.previous_secret_expires_at === null ? '\n\nUpdate your receiver with the new secret now.'
          : '\n\nUpdate your receiver with the new secret before the grace period ends. Until then both verify: '
          + `X-${wp.config.serviceName}-Signature and webhook-signature list one signature per secret, and a `
          + 'receiver accepts the request when any listed value matches.'));
      });
    });

  registerPreviewFilter(webhooks, cli);

  webhooks.command('events')
    .description('The event types a webhook can subscribe to')
    .option('--json', 'machine-readable output')
    .action((opts: { json?: boolean }) => {
      const rows = EVENT_TYPES.map((e) => [e.type, e.description]);
      cli.output(opts.json, EVENT_TYPES, () => table(['EVENT', 'WHEN'], rows));
    });
}
