// Failure e-mails (DESIGN.md "E-mail alerts"): sent over SMTP to the owner's address when SMTP_URL is set, else
// stored (and listed in the console) with a warning in the log. Every alert is kept as an `alerts` row with
// its outcome: sent, failed (with the SMTP error), stored, or suppressed by filters.suppressFailureEmail.
import type { Core } from '../core.js';
import { newId } from '../ids.js';
import { composeAlert, type FailureAlert } from './compose.js';
import { sendMail } from './mailer.js';
import type { AlertRow } from './tables.js';

export type { AlertLevel, FailureAlert } from './compose.js';

export async function sendFailureAlert(core: Core, alert: FailureAlert): Promise<AlertRow> {
  const { subject, body } = composeAlert(core.config, alert);
  const recipient = await core.settings.alertEmail();
  const row: AlertRow = {
    id: newId('alt', core.clock.now()),
    webhook_id: alert.webhook.id,
    delivery_id: alert.deliveryId,
    level: alert.level,
    recipient,
    subject,
    body,
    status: 'stored',
    error: null,
    created_at: new Date(core.clock.now()).toISOString(),
  };
  // alert_level, not level: pino's own `level` is on every line.
  const logged = { webhook: alert.webhook.id, delivery: alert.deliveryId, alert_level: alert.level };
  const { webhook, eventType, attempt, level } = alert;
  const ctx = { webhookId: webhook.id, webhookName: webhook.name, eventType, attempt, level };
  if (core.filters.suppressFailureEmail && (await core.filters.suppressFailureEmail(ctx))) {
    row.status = 'suppressed';
  } else if (!core.config.smtpUrl) {
    core.log.warn(logged, `failure alert stored, not e-mailed: SMTP_URL is not set (${subject})`);
  } else if (!recipient) {
    const why = 'no alert address (set one in the console, ALERT_EMAIL, or create an admin)';
    core.log.warn(logged, `failure alert stored, not e-mailed: ${why}`);
  } else {
    try {
      await sendMail(core.config, { to: recipient, subject, text: body });
      row.status = 'sent';
    } catch (err) {
      row.status = 'failed';
      row.error = (err as Error).message;
      core.log.error({ err, webhook: webhook.id, delivery: alert.deliveryId }, 'failure alert could not be e-mailed');
    }
  }
  await core.db.insertInto('alerts').values(row).execute();
  return row;
}
