// Console settings kept in the `settings` table: the alert e-mail address and the delivery-log retention, and, shown
// beside them, whether webhooks may target private addresses (src/webhooks/private-targets.ts).
// Readers (the alert sender, the retention pruner) use the effective values from here.
import type { Core } from '../core.js';
import { badRequest } from '../errors.js';
import { readSetting, writeSetting } from '../store/settings.js';
import { firstAdminEmail, isEmailAddress } from './accounts.js';
import { readPrivateTargets, type PrivateTargets } from '../webhooks/private-targets.js';

export const ALERT_EMAIL_SETTING = 'alert_email';
export const LOG_RETENTION_SETTING = 'log_retention_days';
export const MAX_LOG_RETENTION_DAYS = 3650;

export interface AdminSettings {
  alert_email: string | null;
  /** Where alert_email comes from: set here, ALERT_EMAIL, the first admin, or nowhere yet. */
  alert_email_source: 'setting' | 'config' | 'first_admin' | 'none';
  log_retention_days: number;
  smtp_configured: boolean;
  /** Whether webhooks may target private addresses (local development), and what says so. Set from the CLI only. */
  private_targets: PrivateTargets;
}

export async function getAdminSettings(core: Core): Promise<AdminSettings> {
  const stored = await readSetting(core.db, ALERT_EMAIL_SETTING);
  const first = stored || core.config.alertEmail ? null : await firstAdminEmail(core.db);
  const retention = Number(await readSetting(core.db, LOG_RETENTION_SETTING));
  return {
    alert_email: stored || core.config.alertEmail || first,
    alert_email_source: stored ? 'setting' : core.config.alertEmail ? 'config' : first ? 'first_admin' : 'none',
    log_retention_days: Number.isInteger(retention) && retention >= 1 ? retention : core.config.logRetentionDays,
    smtp_configured: core.config.smtpUrl !== null,
    private_targets: await readPrivateTargets(core),
  };
}

/** Validates and saves; an empty alert_email removes the setting (back to the default recipient). */
export async function updateAdminSettings(
  core: Core, input: { alert_email?: unknown; log_retention_days?: unknown },
): Promise<AdminSettings> {
  const writes: Array<{ name: string; value: string | null }> = [];
  if (input.alert_email !== undefined) {
    const email = input.alert_email === null ? '' : input.alert_email;
    // One plain address: a comma would send each alert to a list, a NUL was a 500 on PostgreSQL.
    if (typeof email !== 'string' || (email.trim() !== '' && (!isEmailAddress(email.trim()) || email.length > 254))) {
      throw badRequest('invalid_email',
        'Enter a valid e-mail address, like ops@example.com, or leave it empty to use the default.',
        { field: 'alert_email' });
    }
    writes.push({ name: ALERT_EMAIL_SETTING, value: email.trim() === '' ? null : email.trim() });
  }
  if (input.log_retention_days !== undefined) {
    const days = input.log_retention_days;
    if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > MAX_LOG_RETENTION_DAYS) {
      throw badRequest('invalid_retention',
        `Log retention must be a whole number of days from 1 to ${MAX_LOG_RETENTION_DAYS}.`,
        { field: 'log_retention_days' });
    }
    writes.push({ name: LOG_RETENTION_SETTING, value: String(days) });
  }
  await core.db.transaction().execute(async (trx) => {
    for (const { name, value } of writes) await writeSetting(trx, name, value);
  });
  return getAdminSettings(core);
}
