// `waypost privacy erase|export|erasures`: a traveller's personal data (src/privacy/), the same functions as the
// console, the admin API and the host API (WordPress's privacy tools).
import type { Command } from 'commander';
import type { Cli } from '../context.js';
import { CliError } from '../fail.js';
import { table, wholeNumber } from '../table.js';
import type { ErasureView } from '../../privacy/index.js';
import { cliActor } from '../../audit/record.js';

interface PersonOptions { email?: string; customerId?: number; json?: boolean }

const person = (o: PersonOptions) => ({ email: o.email, customer_id: o.customerId });

const STEPS: Record<ErasureView['step'], string> = {
  finding: 'finding their data', deliveries: 'erasing delivery bodies', events: 'erasing stored events',
  records: 'erasing records', caches: 'purging caches', compacting: 'emptying the write-ahead log', done: 'done',
};

function summary(e: ErasureView): string {
  const c = e.counts;
  const lines = [
    `Erasure ${e.id}: ${e.status}`,
    `  customers ${c.customers}, bookings ${c.bookings} (kept without personal data), enquiries ${c.enquiries}, `
      + `reviews ${c.reviews} (now "Anonymous")`,
    `  stored events ${c.events}, deliveries ${c.deliveries} (${c.attempts} attempts' bodies erased)`,
  ];
  if (e.webhooks.length > 0) {
    lines.push('  Already sent to these webhooks (Waypost cannot recall it: pass the request on to them):',
      ...e.webhooks.map((w) => `    ${w.name} <${w.url}> (${w.deliveries} deliveries)`
        + `${w.deleted ? ' [deleted]' : ''}`));
  }
  if (e.event_id) lines.push(`  customer.erased event: ${e.event_id}`);
  return lines.join('\n');
}

export function registerPrivacy(program: Command, cli: Cli): void {
  const privacy = program.command('privacy')
    .description("A traveller's personal data: erase it everywhere Waypost keeps it, or export it");
  const personOptions = (c: Command) => c
    .option('--email <address>', "the person's e-mail")
    .option('--customer-id <id>', 'their customer id', wholeNumber(Number.MAX_SAFE_INTEGER))
    .option('--json', 'machine-readable output');

  personOptions(privacy.command('erase'))
    .description('Erase a person: their customer record and enquiries go, their bookings and reviews lose their '
      + 'personal fields, stored events, delivery bodies and cached answers are erased')
    .action(async (opts: PersonOptions) => {
      const { eraseNow } = await import('../../privacy/index.js'); // loaded to run, not for --help
      await cli.withWaypost(async (wp) => {
        const erasure = await eraseNow(wp.core, person(opts), cliActor(), {
          onStep: (e) => {
            if (e.status === 'running') cli.io.stderr.write(`erasing: ${STEPS[e.step]}…\n`);
          },
        });
        if (erasure.status !== 'succeeded') {
          throw new CliError('erasure_failed', `The erasure ${erasure.id} did not finish.`);
        }
        cli.output(opts.json, erasure, () => summary(erasure));
      });
    });

  personOptions(privacy.command('export'))
    .description('Everything Waypost holds about a person, as one JSON document (records and deliveries)')
    .action(async (opts: PersonOptions) => {
      const { exportPerson } = await import('../../privacy/index.js');
      await cli.withWaypost(async (wp) => {
        cli.io.stdout.write(`${JSON.stringify(await exportPerson(wp.core, person(opts), cliActor()), null, 2)}\n`);
      });
    });

  privacy.command('erasures')
    .description('Past erasures, newest first (recorded without the personal data: a SHA-256 of the e-mail)')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      const { listErasures } = await import('../../privacy/index.js');
      await cli.withWaypost(async (wp) => {
        const items = await listErasures(wp.core);
        cli.output(opts.json, { items }, () => table(
          ['ID', 'CREATED', 'STATUS', 'BY', 'E-MAIL SHA-256', 'CUSTOMERS', 'BOOKINGS', 'WEBHOOKS'],
          items.map((e) => [e.id, e.created_at, e.status, e.requester ? `${e.requested_by} (${e.requester})`
            : e.requested_by, e.email_sha256?.slice(0, 16) ?? '-', String(e.counts.customers),
          String(e.counts.bookings), String(e.webhooks.length)]),
          'No erasures.',
        ));
      });
    });
}
