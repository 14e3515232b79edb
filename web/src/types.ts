// Shapes of the admin JSON API (see DESIGN.md and the admin routes in src/). The delivery log, alert and usage
// shapes are the server's own types (src/admin/console-types.ts imports nothing, so it compiles here too).
import type { DeliveryStatus } from '../../src/admin/console-types.js';

export type {
  AlertView as Alert, AttemptView as Attempt, DeliveryDetail, DeliveryStatus, DeliveryView as Delivery, KeyUsage,
  LogWebhook, MissedWhileDisabled, Page, RecoverJobView as RecoverJob, UsageCounts,
  ChartRange, DeliveryPoint, KeyUsageSeries, UsagePoint, WebhookHealth, WebhookStatsView,
  EventDeliveryRef, EventDetail, EventListItem, EventListPage, EventOutcomeKind, EventWebhookOutcome,
  ErasureCounts, ErasurePreview, ErasureStep, ErasureView, ReceivedBy,
  AuditAction, AuditEntryView as AuditEntry, AuditPage,
} from '../../src/admin/console-types.js';

export interface EventTypeInfo {
  type: string;
  label: string;
  description: string;
}

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
  /** While a secret rotation's grace period lasts, when the previous secret stops signing. */
  previous_secret_expires_at: string | null;
  /** At most this many deliveries a second, across all workers; null: no limit. */
  max_per_second: number | null;
  /** The payload filter (docs/webhooks.md "Filters"); null: every event of its types. */
  filter: unknown;
  /** What the filter's preview found when it was saved. */
  filter_preview: { matched: number; total: number; checked_at: string } | null;
  /** 'record': one record's events are delivered in commit order (docs/webhooks.md). */
  ordering: 'none' | 'record';
  /** 'minimal': `data` holds the record's ids and API link, no personal fields (docs/webhooks.md). */
  payload: 'full' | 'minimal';
}

export interface TestResult {
  delivery_id: string;
  event_id: string;
  success: boolean;
  response: { status: number; headers: Record<string, string>; body: string } | null;
  duration_ms: number;
  error: string | null;
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

export interface Settings {
  alert_email: string | null;
  alert_email_source: 'setting' | 'config' | 'first_admin' | 'none';
  log_retention_days: number;
  /** Days attempts keep the payload sent / the receiver's answer; null: as long as the delivery. */
  payload_retention_days: number | null;
  response_retention_days: number | null;
  audit_retention_days: number;
  smtp_configured: boolean;
  /** Whether webhooks may target private addresses (local development); changed on the server only. */
  private_targets: { allowed: boolean; source: 'environment' | 'setting' | 'off' };
}

export interface SessionInfo {
  email: string | null;
  csrf_token: string | null;
}

/** GET /admin/api/account: the signed-in admin's account, and which WordPress user may sign in as it. */
export interface WordPressUser {
  site_url: string;
  wp_user_id: number;
}

export interface Account {
  email: string;
  name: string | null;
  /** "wordpress": made by WordPress's "Open Webhooks & API"; null: a password account (CLI or setup link). */
  created_via: string | null;
  wordpress_link: WordPressUser | null;
  wordpress_link_request: (WordPressUser & { name: string | null; requested_at: string }) | null;
}
