// The console's Events view, as GET /admin/api/events and /admin/api/events/:id answer it. Imports nothing: the
// console (web/) compiles it too.

/** One event of the list. `record`: the feed's `record` parameter for it (`booking:1042`), null for none. */
export interface EventListItem {
  id: string;
  type: string;
  record: string | null;
  created_at: string;
}

export interface EventListPage {
  items: EventListItem[];
  /** Pass as `after` for the next (older) page; null on the last page. */
  next: string | null;
}

/**
 * What happened to an event at one webhook: the status of its last delivery, or why there was none (its filter
 * skipped it, it is not subscribed to the type, it was created after the event, it is disabled; `not_sent` else,
 * e.g. a test event of another webhook).
 */
export type EventOutcomeKind = 'succeeded' | 'pending' | 'failed' | 'cancelled' | 'skipped_by_filter'
  | 'not_subscribed' | 'created_later' | 'disabled' | 'not_sent';

export interface EventDeliveryRef {
  id: string;
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled';
  last_status: number | null;
  attempts: number;
  redelivery_of: string | null;
  created_at: string;
}

export interface EventWebhookOutcome {
  webhook_id: string;
  webhook_name: string;
  active: boolean;
  outcome: EventOutcomeKind;
  /** Its deliveries of this event, newest first (empty when it got none). */
  deliveries: EventDeliveryRef[];
}

export interface EventDetail {
  /** The envelope exactly as webhooks carry it (and the feed answers it). */
  envelope: { id: string; type: string; created_at: string; data: unknown; previous_attributes?: unknown };
  record: string | null;
  /** A sample sent by "Send test" (not in the feed). */
  test: boolean;
  /** Every webhook not deleted, oldest first. */
  webhooks: EventWebhookOutcome[];
}
