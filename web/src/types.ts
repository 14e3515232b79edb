// Shapes of the admin JSON API (see DESIGN.md and the admin routes in src/).

export interface EventTypeInfo {
  type: string;
  label: string;
  description: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface Webhook {
  id: string;
  name: string;
  url: string;
  events: string[];
  active: boolean;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
  last_delivery: { id: string; status: DeliveryStatus; last_status: number | null; created_at: string } | null;
  warning: string | null;
}

export interface TestResult {
  delivery_id: string;
  event_id: string;
  success: boolean;
  response: { status: number; headers: Record<string, string>; body: string } | null;
  duration_ms: number;
  error: string | null;
}

export interface Delivery {
  id: string;
  webhook_id: string;
  webhook_name: string | null;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  cancel_reason: string | null;
  redelivery_of: string | null;
  test: boolean;
  created_at: string;
  completed_at: string | null;
}

export interface Attempt {
  attempt: number;
  started_at: string;
  duration_ms: number;
  request: { url: string; headers: Record<string, string>; body: string };
  response: { status: number; headers: Record<string, string>; body: string } | null;
  error: string | null;
  success: boolean;
}

export interface DeliveryDetail extends Omit<Delivery, 'attempts'> {
  event: { id: string; type: string; created_at: string; data: unknown } | null;
  attempts: Attempt[];
}

export interface Page<T> {
  items: T[];
  total: number;
  page?: number;
  perpage?: number;
}

export interface Alert {
  id: string;
  webhook_id: string;
  webhook_name: string | null;
  delivery_id: string | null;
  level: 'warning' | 'critical';
  recipient: string | null;
  subject: string;
  body: string;
  status: 'sent' | 'stored' | 'failed' | 'suppressed';
  error: string | null;
  created_at: string;
}

export interface ApiKey {
  id: string;
  label: string;
  key?: string;
  key_prefix?: string;
  permissions: string[];
  active: boolean;
  rate_limit: number | null;
  created_at: string;
  last_used_at: string | null;
}

export interface CreatedApiKey extends ApiKey {
  key: string;
  secret: string;
}

export interface UsageCounts {
  requests: number;
  client_errors: number;
  rate_limited: number;
}

export interface KeyUsage {
  key_id: string;
  label: string;
  days: Array<{ day: string } & UsageCounts>;
  totals: UsageCounts;
}

export interface Settings {
  alert_email: string | null;
  alert_email_source: 'setting' | 'config' | 'first_admin' | 'none';
  log_retention_days: number;
  smtp_configured: boolean;
}

export interface SessionInfo {
  email: string | null;
  csrf_token: string | null;
}
