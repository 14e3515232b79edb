// `waypost alerts list`: failure e-mails, sent or stored (src/webhooks/delivery-log.ts).
import type { Command } from 'commander';
import type { Cli } from '../context.js';
import { table, wholeNumber } from '../table.js';

export function registerAlerts(program: Command, cli: Cli): void {
  const alerts = program.command('alerts').description('Failure alerts (e-mails sent, or stored when SMTP is not set)');

  alerts.command('list')
    .description('Alerts, newest first')
    .option('--limit <n>', 'how many (1-100)', wholeNumber(100), 20)
    .option('--page <n>', 'which page', wholeNumber(1_000_000), 1)
    .option('--json', 'machine-readable output')
    .action(async (opts: { limit: number; page: number; json?: boolean }) => {
      const { listAlerts } = await import('../../webhooks/alerts-log.js'); // loaded to run, not for --help
      await cli.withWaypost(async (wp) => {
        const page = await listAlerts(wp.core, { perpage: opts.limit, page: opts.page });
        cli.output(opts.json, page, () => table(
          ['ID', 'CREATED', 'LEVEL', 'STATUS', 'WEBHOOK', 'TO', 'SUBJECT'],
          page.items.map((a) => [
            a.id, a.created_at, a.level, a.status, a.webhook_name ?? a.webhook_id, a.recipient, a.subject,
          ]),
          'No alerts.',
        ));
      });
    });
}
