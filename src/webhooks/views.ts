// The delivery log's JSON shapes as the admin API answers them. Imports nothing: the console (web/) compiles it too.

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export type RecoverJobStatus = 'running' | 'done' | 'interrupted' | 'failed';

/** A recover's progress (POST /webhooks/:id/recover answers it; GET …/recover/:job follows it). */
export interface RecoverJobView {
  id: string; // rcv_…
  webhook_id: string;
  since: string;
  statuses: DeliveryStatus[];
  status: RecoverJobStatus;
  // To redeliver, counted by the job as it starts (another recover of the same webhook may queue some of them);
  // null until counted: the POST answers before counting, which takes bounded steps in the background.
  total: number | null;
  queued: number; // queued so far
  /** Whether it also sends the events missed while the webhook was off (recover/missed.ts). */
  missed: boolean;
  missed_total: number | null; // of `total`: events missed while off (the rest are redeliveries); null until counted
  missed_queued: number; // of `queued`: missed events queued so far
  error: string | null; // why it failed
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** Enable's answer (`missed_while_disabled`): the off period it ended, and how many events the webhook missed. */
export interface MissedWhileDisabled {
  since: string; // when it was switched off (ISO 8601): a recover from here sends what it missed
  until: string; // when it came back
  events: number; // how many events it missed (at least, when `more`)
  more: boolean; // true: more than `events`; the recover counts them all
}

export interface DeliveryView {
  id: string;
  webhook_id: string;
  webhook_name: string | null;
  event_id: string;
  event_type: string;
  /** The record the event concerns (e.g. bookings 1042); null for events about no record. */
  resource: string | null;
  record_id: number | null;
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

/** A webhook the delivery log can be filtered by, deleted ones included (their deliveries stay in the log). */
export interface LogWebhook {
  id: string;
  name: string;
  deleted: boolean;
}

export interface AttemptView {
  attempt: number;
  started_at: string;
  duration_ms: number;
  /**
   * `pruned`: why the body is empty, e.g. "Payload no longer kept (older than 7 days)." (the payload or response
   * retention blanked it; the response's headers go with its body); null while it is kept.
   */
  request: { url: string; headers: Record<string, string>; body: string; pruned: string | null };
  response: { status: number; headers: Record<string, string>; body: string; pruned: string | null } | null;
  error: string | null;
  success: boolean;
  /**
   * What the receiver's answer changed (DESIGN.md "Receiver signals"): "postponed by Retry-After: 120 s" or
   * "webhook disabled: 410 Gone"; null when nothing.
   */
  signal: string | null;
}

/** A delivery with its event envelope; `attempts` is the list here (its count is `attempt_count`). */
export interface DeliveryDetail extends Omit<DeliveryView, 'attempts'> {
  attempt_count: number;
  /** skipped_by_filter: the webhooks whose payload filter skipped this event (they got no delivery of it). */
  event: { id: string; type: string; created_at: string; data: unknown; skipped_by_filter: string[] } | null;
  attempts: AttemptView[];
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  perpage: number;
  /**
   * A search by e-mail, name or trip (the log's `q`): how many records it found, and whether more hold it than the
   * newest RECORDS_PER_KIND of a kind (webhooks/log-search.ts), whose deliveries are then not all listed.
   */
  search?: { records: number; more: boolean };
}
