// Table types owned by the webhooks capability. Times used for scheduling (next_attempt_at, lease_until) are
// integer milliseconds since the epoch (cheap comparisons in the claim query); the rest are ISO 8601 strings.
import type { DeliveryStatus, RecoverJobStatus } from './views.js';

export interface WebhookRow {
  id: string; // wh_…
  name: string;
  url: string;
  events: string; // JSON array of event types
  secret: string; // "whsec_…", or "enc:v1:…" when WAYPOST_SECRET_KEY is set
  previous_secret: string | null; // the secret a rotation replaced, stored like `secret`; signs until it expires
  previous_secret_expires_at: number | null; // ms; the end of the rotation's grace period
  active: number; // 0/1
  max_per_second: number | null; // deliveries per second across all workers (1-1000); null: unlimited
  ordering: WebhookOrdering; // 'record': a record's events are delivered one after another, in commit order
  // Optional here: inserts written before migration 0032 (tests, benchmarks) name none ('full').
  payload?: WebhookPayload; // 'minimal': ids and an API link instead of the record (delivery/minimal.ts)
  disabled_reason: string | null; // why it was auto-disabled (or disabled by an admin)
  // Optional here: inserts written before migration 0023 (tests, benchmarks) name no filter.
  filter?: string | null; // JSON payload filter (src/webhooks/filters/); null: every event of its types
  filter_preview?: string | null; // JSON {matched, total, checked_at}: the filter over recent events, when saved
  created_at: string;
  updated_at: string;
  deleted_at: string | null; // soft delete: the delivery log keeps its history
}

export interface EventRow {
  id: string; // evt_…
  type: string;
  resource: string | null;
  record_id: number | null;
  data: string; // JSON: the record exactly as the API shows it
  previous_attributes: string | null; // JSON, `*.updated` events: the changed fields' values before the write
  test: number; // 1 for `webhooks test` sample events
  skipped_by_filter?: string | null; // JSON array of the webhook ids whose filter skipped it; null: none
  created_at: string;
  /** W3C traceparent of the outbox insert that queued it (tracing on): its attempts' spans are its children. */
  traceparent?: string | null;
}

export type { DeliveryStatus, RecoverJobStatus };

/** What a delivery's `data` holds: the record as the API shows it ('full', default) or its ids and API link. */
export type WebhookPayload = 'full' | 'minimal';

/** Per-record order (delivery/order.ts): 'none' (default) or 'record'. */
export type WebhookOrdering = 'none' | 'record';

export interface DeliveryRow {
  id: string; // dlv_… (time-sortable); the receiver's idempotency key (X-Waypost-Delivery)
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus; // pending until it succeeds, is exhausted (failed) or cancelled
  attempts: number; // attempts made so far
  next_attempt_at: number | null; // ms; null once final
  lease_owner: string | null; // worker id holding the claim
  lease_until: number | null; // ms; an expired lease makes the delivery claimable again
  last_status: number | null; // last HTTP status
  last_error: string | null;
  cancel_reason: string | null;
  redelivery_of: string | null; // the delivery this one redelivers
  order_key: string | null; // ordered webhooks: the event's record (`bookings:42`); null: outside any order
  waits_for: string | null; // the earlier delivery of its record it waits for (next_attempt_at null meanwhile)
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export interface DeliveryAttemptRow {
  id: string; // att_…
  delivery_id: string;
  attempt: number; // 1-based
  started_at: string;
  duration_ms: number;
  request_url: string;
  request_headers: string; // JSON
  request_body: string;
  response_status: number | null;
  response_headers: string | null; // JSON
  response_body: string | null; // first 64 KiB
  error: string | null;
  success: number;
}

/** A throttled webhook's next free send slot (ms, fractional), reserved atomically by the workers. */
export interface WebhookThrottleRow {
  webhook_id: string;
  next_slot_ms: number;
}

export interface RecoverJobRow {
  id: string; // rcv_…
  webhook_id: string;
  since: string; // ISO 8601
  statuses: string; // comma-separated delivery statuses
  status: RecoverJobStatus; // `running` past lease_until reads as interrupted
  total: number; // deliveries to redeliver, counted as it started (so far, while `counting`)
  counting: number; // 0/1: 1 while the job still counts its total (migration 0017)
  queued: number; // redeliveries and missed events queued so far
  // Optional here: rows written before migration 0028 (tests) name none.
  include_missed?: number; // 0/1: 1 when the job also sends the events missed while the webhook was off
  missed_total?: number; // of `total`: events missed while it was off (recover/missed.ts)
  missed_queued?: number; // of `queued`: missed events queued so far
  lease_until: number; // ms; renewed after every batch
  error: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** A time a webhook was off (migration 0028): disabled at off_at, re-enabled at on_at (null: still off). */
export interface WebhookOffPeriodRow {
  webhook_id: string;
  off_at: string; // ISO 8601
  on_at: string | null; // ISO 8601
  reason: string;
}

/**
 * Chart counters (migration 0025, src/webhooks/stats/): attempts of a webhook per minute ('m') or hour ('h') and
 * outcome, with a latency histogram (l0…l11, bounds in stats/counts.ts); unit 'all' is the webhook's health row.
 */
export interface WebhookStatRow {
  webhook_id: string;
  unit: 'm' | 'h' | 'all';
  bucket: number; // ms: the minute's or hour's start; 0 on the health row
  outcome: '' | 'succeeded' | 'retried' | 'failed'; // '' on the health row
  n: number;
  l0: number; l1: number; l2: number; l3: number; l4: number; l5: number;
  l6: number; l7: number; l8: number; l9: number; l10: number; l11: number;
  last_success: number | null; // ms; health row only
  last_failure: number | null; // ms; health row only
  streak: number; // health row: > 0 consecutive successful attempts, < 0 consecutive failed ones
}

export interface WebhookTables {
  webhooks: WebhookRow;
  events: EventRow;
  deliveries: DeliveryRow;
  delivery_attempts: DeliveryAttemptRow;
  webhook_throttle: WebhookThrottleRow;
  recover_jobs: RecoverJobRow;
  webhook_stats: WebhookStatRow;
  webhook_off_periods: WebhookOffPeriodRow;
}
