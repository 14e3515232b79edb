// `waypost settings get|set`: what the console's Settings page shows and changes (src/admin/settings.ts), with the
// same validation: the alert e-mail address, the delivery-log retention and how long payloads and receivers' answers
// are kept within it, the audit-log retention; and whether webhooks may target private addresses, which the console
// only shows (src/webhooks/private-targets.ts).
import { InvalidArgumentError, type Command } from 'commander';
import {
  getAdminSettings, MAX_LOG_RETENTION_DAYS, updateAdminSettings, type AdminSettings,
} from '../../admin/settings.js';
import { cliActor } from '../../audit/record.js';
import { setPrivateTargets, type PrivateTargets } from '../../webhooks/private-targets.js';
import { CliError } from '../fail.js';
import type { Cli } from '../context.js';
import { fields } from '../table.js';

const PRIVATE_TARGETS: Record<PrivateTargets['source'], string> = {
  environment: 'allowed (WAYPOST_ALLOW_PRIVATE_TARGETS=true in this process\'s environment)',
  setting: 'allowed for every process on this database (local development; '
    + '`waypost settings set --allow-private-targets false` refuses them again)',
  off: 'refused (webhooks must target public addresses; for local development: '
    + '`waypost settings set --allow-private-targets true`)',
};

const SOURCES: Record<AdminSettings['alert_email_source'], string> = {
  setting: 'set here',
  config: 'from ALERT_EMAIL',
  first_admin: 'the first admin, by default',
  none: 'nobody yet: set one, or create an admin',
};

const keptFor = (days: number | null) => (days === null ? 'as long as the delivery' : `${days} days`);

/** A number when it is one, null for "" (back to the default); anything else as given, for the service's message. */
function daysInput(value: string | undefined): unknown {
  if (value === undefined) return undefined;
  if (value.trim() === '') return null;
  return /^\d{1,9}$/.test(value.trim()) ? Number(value) : value;
}

function describe(s: AdminSettings): string {
  return fields([
    ['alert e-mail', s.alert_email ? `${s.alert_email} (${SOURCES[s.alert_email_source]})` : SOURCES.none],
    ['log retention', `${s.log_retention_days} days`],
    ['payloads kept', keptFor(s.payload_retention_days)],
    ['responses kept', keptFor(s.response_retention_days)],
    ['audit retention', `${s.audit_retention_days} days`],
    ['e-mail delivery', s.smtp_configured ? 'SMTP'
      : 'SMTP_URL is not set: alerts are stored and shown in `waypost alerts list`'],
    ['private targets', PRIVATE_TARGETS[s.private_targets.source]],
  ]);
}

interface SetOptions {
  alertEmail?: string;
  logRetentionDays?: string;
  payloadRetentionDays?: string;
  responseRetentionDays?: string;
  auditRetentionDays?: string;
  allowPrivateTargets?: boolean;
  json?: boolean;
}

function yesNo(value: string): boolean {
  const v = value.trim().toLowerCase();
  if (['true', 'yes', 'on', '1'].includes(v)) return true;
  if (['false', 'no', 'off', '0'].includes(v)) return false;
  throw new InvalidArgumentError('Give true or false.');
}

export function registerSettings(program: Command, cli: Cli): void {
  const settings = program.command('settings')
    .description('The console\'s settings: alert e-mail address, log retention, and whether webhooks may target '
      + 'private addresses');

  settings.command('get')
    .description('Show the settings in effect')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      await cli.withWaypost(async (wp) => {
        const s = await getAdminSettings(wp.core);
        cli.output(opts.json, s, () => describe(s));
      });
    });

  settings.command('set')
    .description('Change the alert e-mail address, the log retention, how long payloads and receivers\' answers are '
      + 'kept, the audit-log retention (failure e-mails cannot be turned off) and/or whether webhooks may target '
      + 'private addresses')
    .option('--alert-email <email>',
      'where failure alerts go; "" returns to the default (ALERT_EMAIL, else the first admin)')
    .option('--log-retention-days <days>', `how long the delivery log is kept, 1-${MAX_LOG_RETENTION_DAYS} days`)
    .option('--payload-retention-days <days>', 'how long attempts keep the payload sent, 1 day to the log retention; '
      + '"" keeps it as long as the delivery')
    .option('--response-retention-days <days>', 'how long attempts keep the receiver\'s answer (body and headers), '
      + '1 day to the log retention; "" keeps it as long as the delivery')
    .option('--audit-retention-days <days>', `how long the audit log is kept, 1-${MAX_LOG_RETENTION_DAYS} days`)
    .option('--allow-private-targets <true|false>', 'let webhooks target localhost, 127.0.0.1 and LAN addresses, for '
      + 'local development (every process on this database follows; the console only shows it)', yesNo)
    .option('--json', 'machine-readable output')
    .action(async (opts: SetOptions) => {
      const given = [opts.alertEmail, opts.logRetentionDays, opts.payloadRetentionDays, opts.responseRetentionDays,
        opts.auditRetentionDays, opts.allowPrivateTargets];
      if (given.every((o) => o === undefined)) {
        throw new CliError('nothing_to_change', 'give --alert-email, --log-retention-days, --payload-retention-days, '
          + '--response-retention-days, --audit-retention-days and/or --allow-private-targets');
      }
      // An empty log retention is not a number either: the service's own message explains what is wanted.
      const retention = opts.logRetentionDays?.trim() === '' ? '' : daysInput(opts.logRetentionDays);
      const audit = opts.auditRetentionDays?.trim() === '' ? '' : daysInput(opts.auditRetentionDays);
      await cli.withWaypost(async (wp) => {
        // The console's settings are checked (and saved) first: a refused value changes nothing else either. Each
        // save is recorded in the audit log with it.
        let s = await updateAdminSettings(wp.core, {
          alert_email: opts.alertEmail, log_retention_days: retention,
          payload_retention_days: daysInput(opts.payloadRetentionDays),
          response_retention_days: daysInput(opts.responseRetentionDays), audit_retention_days: audit,
        }, cliActor());
        if (opts.allowPrivateTargets !== undefined) {
          await setPrivateTargets(wp.core, opts.allowPrivateTargets, cliActor());
          s = await getAdminSettings(wp.core);
        }
        cli.output(opts.json, s, () => `Settings saved.\n${describe(s)}`);
      });
    });
}
