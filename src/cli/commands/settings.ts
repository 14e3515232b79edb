// `waypost settings get|set`: what the console's Settings page shows and changes (src/admin/settings.ts), with the
// same validation: the alert e-mail address and the delivery-log retention.
import type { Command } from 'commander';
import {
  getAdminSettings, MAX_LOG_RETENTION_DAYS, updateAdminSettings, type AdminSettings,
} from '../../admin/settings.js';
import { CliError } from '../fail.js';
import type { Cli } from '../context.js';
import { fields } from '../table.js';

const SOURCES: Record<AdminSettings['alert_email_source'], string> = {
  setting: 'set here',
  config: 'from ALERT_EMAIL',
  first_admin: 'the first admin, by default',
  none: 'nobody yet: set one, or create an admin',
};

function describe(s: AdminSettings): string {
  return fields([
    ['alert e-mail', s.alert_email ? `${s.alert_email} (${SOURCES[s.alert_email_source]})` : SOURCES.none],
    ['log retention', `${s.log_retention_days} days`],
    ['e-mail delivery', s.smtp_configured ? 'SMTP'
      : 'SMTP_URL is not set: alerts are stored and shown in `waypost alerts list`'],
  ]);
}

export function registerSettings(program: Command, cli: Cli): void {
  const settings = program.command('settings')
    .description('The console\'s settings: alert e-mail address and log retention');

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
    .description('Change the alert e-mail address and/or the log retention (failure e-mails cannot be turned off)')
    .option('--alert-email <email>',
      'where failure alerts go; "" returns to the default (ALERT_EMAIL, else the first admin)')
    .option('--log-retention-days <days>', `how long the delivery log is kept, 1-${MAX_LOG_RETENTION_DAYS} days`)
    .option('--json', 'machine-readable output')
    .action(async (opts: { alertEmail?: string; logRetentionDays?: string; json?: boolean }) => {
      if (opts.alertEmail === undefined && opts.logRetentionDays === undefined) {
        throw new CliError('nothing_to_change', 'give --alert-email and/or --log-retention-days');
      }
      // A number when it is one; anything else goes as given, so the service's own message explains what is wanted.
      const days = opts.logRetentionDays;
      const retention = days !== undefined && /^\d{1,9}$/.test(days.trim()) ? Number(days) : days;
      await cli.withWaypost(async (wp) => {
        const s = await updateAdminSettings(wp.core, { alert_email: opts.alertEmail, log_retention_days: retention });
        cli.output(opts.json, s, () => `Settings saved.\n${describe(s)}`);
      });
    });
}
