// `waypost deliveries list|show|redeliver|recover`: the delivery log (src/webhooks/delivery-log.ts,
// src/webhooks/recover.ts), with the console Logs tab's filters and search.
import type { Command } from 'commander';
import { Option } from 'commander';
import type { DeliveryDetail, DeliveryView } from '../../webhooks/delivery-log.js';
import type { DeliveryStatus } from '../../webhooks/tables.js';
import { RECOVERABLE } from '../../webhooks/recover/input.js';
import { progress, type Progress } from '../progress.js';
import { EVENT_TYPE_NAMES } from '../../webhooks/catalog.js';
import { RESOURCES } from '../../records/schemas.js';
import { cliActor } from '../../audit/record.js';
import type { Cli } from '../context.js';
import { fields, table, wholeNumber } from '../table.js';

// The log and recover are loaded when a command runs (they bring the delivery queues and both database drivers'
// notification code), not for `waypost --help`. The statuses --status offers, every one (the compiler checks):
const EVERY_STATUS: Record<DeliveryStatus, true> = { pending: true, succeeded: true, failed: true, cancelled: true };
const DELIVERY_STATUSES = Object.keys(EVERY_STATUS) as DeliveryStatus[];
const deliveryLog = () => import('../../webhooks/delivery-log.js');

interface DeliveryListOptions {
  webhook?: string;
  status?: string;
  event?: string;
  since?: string;
  until?: string;
  delivery?: string;
  eventId?: string;
  record?: string;
  resource?: string;
  search?: string;
  limit: number;
  page: number;
  json?: boolean;
}

const SINGULAR: Record<string, string> = {
  trips: 'trip', customers: 'customer', bookings: 'booking', payments: 'payment', enquiries: 'enquiry',
  reviews: 'review',
};

/** Which record the event concerns, as the console says it: "booking 1042". */
function record(d: Pick<DeliveryView, 'resource' | 'record_id'>): string | null {
  return d.resource && d.record_id !== null ? `${SINGULAR[d.resource] ?? d.resource} ${d.record_id}` : null;
}

function note(d: DeliveryView): string | null {
  if (d.status === 'pending') return d.next_attempt_at ? `next ${d.next_attempt_at}` : null;
  if (d.status === 'cancelled') return d.cancel_reason;
  if (d.status === 'failed') return d.last_error;
  return d.redelivery_of ? `redelivery of ${d.redelivery_of}` : null;
}

/** One attempt as a line: "#1 <time> 18 ms failed: HTTP 500" or "… failed: connect ECONNREFUSED …", then its body. */
function attemptLine(a: DeliveryDetail['attempts'][number]): string {
  const http = a.response ? `HTTP ${a.response.status}` : null;
  // A failed answer's error already names its status ("HTTP 500: expected 200"): say it once.
  const status = http && a.error?.startsWith(http) ? null : http;
  const outcome = [status, a.error, a.signal ? `(${a.signal})` : null].filter(Boolean).join(' ');
  const result = a.success ? 'success' : 'failed';
  const head = `#${a.attempt} ${a.started_at} ${a.duration_ms} ms ${result}${outcome ? `: ${outcome}` : ''}`;
  const body = a.response?.pruned ?? a.response?.body;
  return `\n${head}${body ? `\n${body}` : ''}`;
}

export function registerDeliveries(program: Command, cli: Cli): void {
  const deliveries = program.command('deliveries').description('The delivery log: list, show, redeliver, recover');

  deliveries.command('list')
    .description('Deliveries, newest first; filter and search as in the console\'s Logs tab')
    .option('--webhook <id>', 'only this webhook\'s deliveries (deleted webhooks too)')
    .addOption(new Option('--status <status>', 'only deliveries in this state').choices([...DELIVERY_STATUSES]))
    .addOption(new Option('--event <type>', 'only this event type').choices([...EVENT_TYPE_NAMES]))
    .option('--since <time>', 'only deliveries created at or after this ISO 8601 time, e.g. 2026-01-31T00:00:00Z')
    .option('--until <time>', 'only deliveries created before this ISO 8601 time')
    .option('--search <text>', 'deliveries about a traveller (e-mail, name, phone) or trip (title), or with this id '
      + '(dlv_…, evt_…, booking 1042), as the Logs tab\'s search box')
    .option('--delivery <id>', 'search: this delivery')
    .option('--event-id <id>', 'search: the deliveries of this event (evt_…)')
    .option('--record <id>', 'search: the deliveries of events about this record id (e.g. booking 1042: --record 1042)')
    .addOption(new Option('--resource <name>', 'with --record: only this kind of record').choices([...RESOURCES]))
    .option('--limit <n>', 'how many (1-100)', wholeNumber(100), 20)
    .option('--page <n>', 'which page of --limit deliveries', wholeNumber(1_000_000), 1)
    .option('--json', 'machine-readable output')
    .action(async (opts: DeliveryListOptions) => {
      const { listDeliveries } = await deliveryLog();
      await cli.withWaypost(async (wp) => {
        const page = await listDeliveries(wp.core, {
          webhook_id: opts.webhook, status: opts.status, event_type: opts.event, since: opts.since, until: opts.until,
          delivery_id: opts.delivery, event_id: opts.eventId, record_id: opts.record, resource: opts.resource,
          q: opts.search, perpage: opts.limit, page: opts.page,
        });
        cli.output(opts.json, page, () => {
          const shown = table(
            ['ID', 'CREATED', 'WEBHOOK', 'EVENT', 'STATUS', 'HTTP', 'ATTEMPTS', 'RECORD', 'NOTE'],
            page.items.map((d) => [
              d.id, d.created_at, d.webhook_name ?? d.webhook_id, d.event_type + (d.test ? ' (test)' : ''),
              d.status, d.last_status, d.attempts, record(d), note(d),
            ]),
            'No deliveries match.',
          );
          const more = `(${page.items.length} of ${page.total}; use --page or --limit for more)`;
          // A search many records hold lists the deliveries of the newest RECORDS_PER_KIND of each kind.
          const narrow = page.search?.more ? `\n(More records match "${opts.search}" than were searched: these are `
            + 'deliveries about the newest 100 of each kind; give more of the e-mail, name or trip.)' : '';
          return (page.total > page.items.length ? `${shown}\n${more}` : shown) + narrow;
        });
      });
    });

  deliveries.command('show <id>').alias('get')
    .description('One delivery with its event and every attempt (request and response)')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { json?: boolean }) => {
      const { getDelivery } = await deliveryLog();
      await cli.withWaypost(async (wp) => {
        const d = await getDelivery(wp.core, id);
        cli.output(opts.json, d, () => [
          fields([
            ['delivery', d.id], ['webhook', `${d.webhook_name ?? '-'} (${d.webhook_id})`],
            ['event', `${d.event_type} (${d.event_id})${d.test ? ' test' : ''}`], ['record', record(d)],
            ['status', d.status], ['attempts', d.attempt_count], ['next attempt', d.next_attempt_at],
            ['cancelled', d.cancel_reason], ['redelivery of', d.redelivery_of], ['created', d.created_at],
            ['completed', d.completed_at],
          ]),
          ...d.attempts.map(attemptLine),
        ].join('\n'));
      });
    });

  deliveries.command('redeliver <id>')
    .description('Queue a new delivery of the same event (the webhook must be enabled)')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { json?: boolean }) => {
      const { redeliver } = await deliveryLog();
      await cli.withWaypost(async (wp) => {
        const d = await redeliver(wp.core, id, cliActor());
        cli.output(opts.json, d, () => `Queued ${d.id}: a redelivery of ${id} (${d.event_type}) `
          + `to ${d.webhook_name ?? d.webhook_id}. A running worker sends it now.`);
      });
    });

  deliveries.command('recover')
    .description('Redeliver, once, every failed or cancelled delivery of a webhook since a time (e.g. after an outage '
      + 'or while it was disabled), and send the events it missed while disabled; running it again sends nothing twice')
    .requiredOption('--webhook <id>', 'the webhook (it must be enabled)')
    .requiredOption('--since <time>', 'deliveries created at or after this ISO 8601 time, e.g. 2026-01-31T00:00:00Z')
    .option('--status <list>', `comma-separated, from: ${RECOVERABLE.join(', ')} (default: both)`)
    .option('--no-missed', 'do not send the events that happened while it was disabled (only redeliver)')
    .option('--json', 'machine-readable output: the finished job {id, status, total, queued, missed_queued, …}')
    .action(async (opts: { webhook: string; since: string; status?: string; missed: boolean; json?: boolean }) => {
      const statuses = opts.status?.split(',').map((s) => s.trim()).filter(Boolean);
      const { recoverDeliveries } = await import('../../webhooks/recover/index.js');
      await cli.withWaypost(async (wp) => {
        let bar: Progress | null = null; // on stderr, so stdout stays the result (or --json)
        let id = '';
        // The job counts its total first (in bounded steps); on a terminal say so until the bar replaces it.
        const { stderr } = cli.io;
        const counting = stderr.isTTY ? (text: string) => stderr.write(`\r\x1b[2K${text}`) : null;
        const input = { since: opts.since, statuses, missed: opts.missed };
        // Recorded as the job starts (as the admin API does), whether or not it then runs to its end.
        let recorded: Promise<void> = Promise.resolve();
        const job = await recoverDeliveries(wp.core, opts.webhook, input, {
          onStart: (j) => {
            id = j.id;
            recorded = cli.audit(wp.core, { action: 'webhook.recovered', targetType: 'webhook', targetId: j.webhook_id,
              details: { job: j.id, since: j.since, missed: j.missed } });
            counting?.(`Recovering ${id}: counting the deliveries…`);
          },
          onTotal: (total) => {
            counting?.('');
            if (total > 0) bar = progress(`Recovering ${id}`, total, { unit: 'deliveries', stream: stderr });
          },
          onBatch: (n) => bar?.tick(n),
        }).finally(async () => {
          if (!bar) counting?.('');
          await recorded;
        });
        (bar as Progress | null)?.done();
        const { queued, missed_queued: missed } = job;
        const redelivered = queued - missed;
        const parts = [
          ...(redelivered > 0 || missed === 0 ? [`${redelivered} ${redelivered === 1 ? 'redelivery' : 'redeliveries'}`]
            : []),
          ...(missed > 0 ? [`${missed} missed ${missed === 1 ? 'event' : 'events'} (while disabled)`] : []),
        ];
        cli.output(opts.json, job, () => (queued === 0
          ? `Nothing to recover for ${opts.webhook} since ${opts.since} (or it was recovered already).`
          : `Queued ${parts.join(' and ')} for ${opts.webhook} (${job.id}, ${job.status}). A running worker sends `
            + 'them now.'));
      });
    });
}
