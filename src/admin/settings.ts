// Console settings kept in the `settings` table: the alert e-mail address, the delivery-log retention and how long
// attempts keep payloads and receivers' answers within it (src/webhooks/retention.ts), the audit-log retention, and,
// shown beside them, whether webhooks may target private addresses (src/webhooks/private-targets.ts).
// Readers (the alert sender, the retention pruner) use the effective values from here.
import type { Kysely } from 'kysely';
import { recordAudit, type Actor } from '../audit/record.js';
import type { Core } from '../core.js';
import { badRequest } from '../errors.js';
import { readSetting, writeSetting } from '../store/settings.js';
import type { Database } from '../store/tables.js';
import { firstAdminEmail, isEmailAddress } from './accounts.js';
import { readPrivateTargets, type PrivateTargets } from '../webhooks/private-targets.js';

export const ALERT_EMAIL_SETTING = 'alert_email';
export const LOG_RETENTION_SETTING = 'log_retention_days';
export const MAX_LOG_RETENTION_DAYS = 3650;
export const PAYLOAD_RETENTION_SETTING = 'payload_retention_days';
export const RESPONSE_RETENTION_SETTING = 'response_retention_days';
export const AUDIT_RETENTION_SETTING = 'audit_retention_days';

export interface AdminSettings {
  alert_email: string | null;
  /** Where alert_email comes from: set here, ALERT_EMAIL, the first admin, or nowhere yet. */
  alert_email_source: 'setting' | 'config' | 'first_admin' | 'none';
  log_retention_days: number;
  /** Days attempts keep the payload sent; null: as long as the delivery (log_retention_days). */
  payload_retention_days: number | null;
  /** Days attempts keep the receiver's answer (body and headers); null: as long as the delivery. */
  response_retention_days: number | null;
  /** How long the audit log keeps an entry (the setting, else WAYPOST_AUDIT_RETENTION_DAYS). */
  audit_retention_days: number;
  smtp_configured: boolean;
  /** Whether webhooks may target private addresses (local development), and what says so. Set from the CLI only. */
  private_targets: PrivateTargets;
}

/** What the `settings` table says (read through `db`: the save's transaction reads its own writes). */
async function storedSettings(core: Core, db: Kysely<Database>): Promise<Omit<AdminSettings, 'private_targets'>> {
  const stored = await readSetting(db, ALERT_EMAIL_SETTING);
  const first = stored || core.config.alertEmail ? null : await firstAdminEmail(db);
  const retention = Number(await readSetting(db, LOG_RETENTION_SETTING));
  const days = async (name: string, fallback: number | null) => {
    const n = Number(await readSetting(db, name) ?? NaN);
    return Number.isInteger(n) && n >= 1 ? n : fallback;
  };
  const audit = Number(await readSetting(db, AUDIT_RETENTION_SETTING));
  return {
    alert_email: stored || core.config.alertEmail || first,
    alert_email_source: stored ? 'setting' : core.config.alertEmail ? 'config' : first ? 'first_admin' : 'none',
    log_retention_days: Number.isInteger(retention) && retention >= 1 ? retention : core.config.logRetentionDays,
    payload_retention_days: await days(PAYLOAD_RETENTION_SETTING, core.config.payloadRetentionDays),
    response_retention_days: await days(RESPONSE_RETENTION_SETTING, core.config.responseRetentionDays),
    audit_retention_days: Number.isInteger(audit) && audit >= 1 ? audit : core.config.auditRetentionDays,
    smtp_configured: core.config.smtpUrl !== null,
  };
}

export async function getAdminSettings(core: Core): Promise<AdminSettings> {
  return { ...await storedSettings(core, core.db), private_targets: await readPrivateTargets(core) };
}

export interface SettingsInput {
  alert_email?: unknown;
  log_retention_days?: unknown;
  payload_retention_days?: unknown;
  response_retention_days?: unknown;
  audit_retention_days?: unknown;
}

/**
 * Validates and saves; an empty alert_email removes the setting (back to the default recipient), a null payload or
 * response retention too (back to WAYPOST_PAYLOAD/RESPONSE_RETENTION_DAYS, else as long as the delivery).
 */
export async function updateAdminSettings(core: Core, input: SettingsInput, actor?: Actor): Promise<AdminSettings> {
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
  for (const [field, name, what] of [
    ['log_retention_days', LOG_RETENTION_SETTING, 'Log retention'],
    ['audit_retention_days', AUDIT_RETENTION_SETTING, 'Audit log retention'],
  ] as const) {
    const days = input[field];
    if (days === undefined) continue;
    if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > MAX_LOG_RETENTION_DAYS) {
      throw badRequest('invalid_retention',
        `${what} must be a whole number of days from 1 to ${MAX_LOG_RETENTION_DAYS}.`, { field });
    }
    writes.push({ name, value: String(days) });
  }
  const logDays = typeof input.log_retention_days === 'number' ? input.log_retention_days
    : (await getAdminSettings(core)).log_retention_days;
  for (const [field, name, what] of [
    ['payload_retention_days', PAYLOAD_RETENTION_SETTING, 'Payload'],
    ['response_retention_days', RESPONSE_RETENTION_SETTING, 'Response'],
  ] as const) {
    const days = input[field];
    if (days === undefined) continue;
    // Longer than the log would change nothing: the whole delivery is deleted after log_retention_days.
    if (days !== null && (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > logDays)) {
      throw badRequest('invalid_retention', `${what} retention must be a whole number of days from 1 to the log `
        + `retention (${logDays}), or empty to keep it as long as the delivery.`, { field });
    }
    writes.push({ name, value: days === null ? null : String(days) });
  }
  await core.db.transaction().execute(async (trx) => {
    const before = await storedSettings(core, trx);
    for (const { name, value } of writes) await writeSetting(trx, name, value);
    // Recorded with the save (src/audit/), naming the settings it changed in effect: a form saved as it was, none.
    const fields = changedSettings(before, await storedSettings(core, trx));
    if (fields.length > 0) {
      await recordAudit(core, actor, { action: 'settings.changed', targetType: 'settings', targetId: null,
        details: { fields } }, trx);
    }
  });
  return getAdminSettings(core);
}

/** The settings a save changed in effect (the audit log names them): a form saved as it was changes none. */
function changedSettings(
  before: Omit<AdminSettings, 'private_targets'>, after: Omit<AdminSettings, 'private_targets'>,
): string[] {
  const fields: string[] = (['alert_email', 'log_retention_days', 'payload_retention_days', 'response_retention_days',
    'audit_retention_days'] as const)
    .filter((f) => before[f] !== after[f]);
  if (!fields.includes('alert_email') && before.alert_email_source !== after.alert_email_source) {
    fields.unshift('alert_email'); // the same address, now set here (or back to the default)
  }
  return fields;
}
