// The alerts' JSON shapes as the admin API answers them. Imports nothing: the console (web/) compiles it too.

export type AlertLevel = 'warning' | 'critical';
/** stored: no SMTP configured; suppressed: a host filter decided not to send it. */
export type AlertStatus = 'sent' | 'stored' | 'failed' | 'suppressed';

export interface AlertView {
  id: string;
  webhook_id: string;
  webhook_name: string | null;
  delivery_id: string | null;
  level: AlertLevel;
  recipient: string | null;
  subject: string;
  body: string;
  status: AlertStatus;
  error: string | null;
  created_at: string;
}
