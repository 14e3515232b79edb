// `waypost deliveries list|show|redeliver`: the delivery log (src/webhooks/delivery-log.ts).
import type { Command } from 'commander';
import { Option } from 'commander';
import { DELIVERY_STATUSES, getDelivery, listDeliveries, redeliver } from '../../webhooks/delivery-log.js';
import { EVENT_TYPE_NAMES } from '../../webhooks/catalog.js';
import { output, withWaypost } from '../context.js';
import { fields, table, wholeNumber } from '../table.js';

export function registerDeliveries(program: Command): void {
  const deliveries = program.command('deliveries').description('The delivery log: list, show, redeliver');

  deliveries.command('list')
    .description('Deliveries, newest first')
    .option('--webhook <id>', 'only this webhook\'s deliveries')
    .addOption(new Option('--status <status>', 'only deliveries in this state').choices([...DELIVERY_STATUSES]))
    .addOption(new Option('--event <type>', 'only this event type').choices([...EVENT_TYPE_NAMES]))
    .option('--limit <n>', 'how many (1-100)', wholeNumber(100), 20)
    .option('--page <n>', 'which page of --limit deliveries', wholeNumber(1_000_000), 1)
    .option('--json', 'machine-readable output')
    .action(async (opts: { webhook?: string; status?: string; event?: string; limit: number; page: number; json?: boolean }) => {
      await withWaypost(async (wp) => {
        const page = await listDeliveries(wp.core, { webhook_id: opts.webhook, status: opts.status, event_type: opts.event, perpage: opts.limit, page: opts.page });
        output(opts.json, page, () => {
          const shown = table(
            ['ID', 'CREATED', 'WEBHOOK', 'EVENT', 'STATUS', 'HTTP', 'ATTEMPTS', 'NOTE'],
            page.items.map((d) => [d.id, d.created_at, d.webhook_name ?? d.webhook_id, d.event_type + (d.test ? ' (test)' : ''), d.status, d.last_status, d.attempts,
              d.status === 'pending' ? (d.next_attempt_at ? `next ${d.next_attempt_at}` : null) : d.status === 'cancelled' ? d.cancel_reason : d.status === 'failed' ? d.last_error : d.redelivery_of ? `redelivery of ${d.redelivery_of}` : null]),
            'No deliveries match.',
          );
          return page.total > page.items.length ? `${shown}\n(${page.items.length} of ${page.total}; use --page or --limit for more)` : shown;
        });
      });
    });

  deliveries.command('show <id>')
    .description('One delivery with its event and every attempt (request and response)')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { json?: boolean }) => {
      await withWaypost(async (wp) => {
        const d = await getDelivery(wp.core, id);
        output(opts.json, d, () => [
          fields([
            ['delivery', d.id], ['webhook', `${d.webhook_name ?? '-'} (${d.webhook_id})`], ['event', `${d.event_type} (${d.event_id})${d.test ? ' test' : ''}`],
            ['status', d.status], ['attempts', d.attempt_count], ['next attempt', d.next_attempt_at], ['cancelled', d.cancel_reason],
            ['redelivery of', d.redelivery_of], ['created', d.created_at], ['completed', d.completed_at],
          ]),
          ...d.attempts.map((a) => `\n#${a.attempt} ${a.started_at} ${a.duration_ms} ms ${a.success ? 'success' : 'failed'}: ${a.response ? `HTTP ${a.response.status}` : ''}${a.error ? ` ${a.error}` : ''}${a.response?.body ? `\n${a.response.body}` : ''}`),
        ].join('\n'));
      });
    });

  deliveries.command('redeliver <id>')
    .description('Queue a new delivery of the same event (the webhook must be enabled)')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { json?: boolean }) => {
      await withWaypost(async (wp) => {
        const d = await redeliver(wp.core, id);
        output(opts.json, d, () => `Queued ${d.id}: a redelivery of ${id} (${d.event_type}) to ${d.webhook_name ?? d.webhook_id}. A running worker sends it now.`);
      });
    });
}
