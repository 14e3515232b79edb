// The text of a failure e-mail: what failed, where, how often, what the receiver said, what happens next, and
// where to look in the console.
import type { Config } from '../config.js';
import type { AlertLevel } from './views.js';

export type { AlertLevel };

export interface FailureAlert {
  level: AlertLevel;
  webhook: { id: string; name: string; url: string };
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  totalAttempts: number;
  error: string;
  /** ISO time of the next attempt (warnings); null when none follows. */
  nextAttemptAt: string | null;
  /** Set when a receiver signal (410 Gone) disabled the webhook before the schedule ran out. */
  disabledReason?: string | null;
}

export function consoleLink(config: Pick<Config, 'baseUrl'>, deliveryId: string): string {
  return `${config.baseUrl}/admin/#/logs?delivery=${encodeURIComponent(deliveryId)}`;
}

export function composeAlert(
  config: Pick<Config, 'baseUrl' | 'serviceName'>, a: FailureAlert,
): { subject: string; body: string } {
  const name = `"${a.webhook.name}"`;
  const subject = a.disabledReason
    ? `[${config.serviceName}] Critical: webhook ${name} disabled: ${a.disabledReason}`
    : a.level === 'critical'
    ? `[${config.serviceName}] Critical: webhook ${name} disabled after ${a.attempt} failed attempts`
    : `[${config.serviceName}] Warning: webhook ${name} failed attempt ${a.attempt} of ${a.totalAttempts}`;
  const next = a.level === 'critical'
    ? 'No further attempts: the webhook has been disabled and its pending deliveries cancelled.\n'
      + 'Fix the receiver, re-enable the webhook in the console, then redeliver the failed deliveries from the log.'
    : `Next attempt: ${a.nextAttemptAt ?? 'none'} (attempt ${a.attempt + 1} of ${a.totalAttempts}).`;
  const body = [
    a.disabledReason
      ? `The webhook ${name} has been disabled: ${a.disabledReason} (it asks not to be sent anything more).`
      : a.level === 'critical'
      ? `The webhook ${name} failed its last delivery attempt and has been disabled.`
      : `A delivery to the webhook ${name} failed again.`,
    '',
    `Webhook:     ${a.webhook.name} (${a.webhook.id})`,
    `URL:         ${a.webhook.url}`,
    `Event:       ${a.eventType} (${a.eventId})`,
    `Delivery:    ${a.deliveryId}`,
    `Attempt:     ${a.attempt} of ${a.totalAttempts}`,
    `Last error:  ${a.error}`,
    '',
    next,
    '',
    `Delivery log: ${consoleLink(config, a.deliveryId)}`,
    '',
    `Success means an HTTP 200 answer within the delivery timeout. Failure e-mails cannot be turned off.`,
  ].join('\n');
  return { subject, body };
}
