// The chart endpoints' JSON shapes (GET /admin/api/webhooks/:id/stats, /admin/api/webhooks/health,
// /admin/api/keys/:id/usage/series). Imports nothing: the console (web/) compiles it too.

export type ChartRange = '24h' | '7d' | '30d';

/** One time step of a webhook's chart: attempts by outcome and their latency (upper bounds of histogram buckets). */
export interface DeliveryPoint {
  start: string; // ISO 8601
  succeeded: number;
  retried: number; // failed attempts after which another was scheduled
  failed: number; // failed attempts that ended their delivery (retries exhausted, or cancelled meanwhile)
  p50_ms: number | null; // null: no attempts in this step
  p95_ms: number | null;
}

export interface WebhookHealth {
  webhook_id: string;
  /** Successful attempts / all attempts in the range; null without attempts. */
  success_rate: number | null;
  attempts: number;
  last_success_at: string | null;
  last_failure_at: string | null;
  /** The current run of attempts with the same result; null before the first attempt. */
  streak: { kind: 'succeeding' | 'failing'; attempts: number } | null;
}

export interface WebhookStatsView {
  webhook_id: string;
  range: ChartRange;
  step_s: number;
  from: string;
  to: string;
  points: DeliveryPoint[];
  totals: Omit<DeliveryPoint, 'start'>;
  health: WebhookHealth;
}

export interface UsagePoint {
  start: string;
  ok: number; // 2xx and 304
  client_errors: number; // 4xx other than 429
  rate_limited: number; // 429
  server_errors: number; // 5xx
}

export interface KeyUsageSeries {
  key_id: string;
  range: ChartRange;
  step_s: number;
  from: string;
  to: string;
  points: UsagePoint[];
  totals: Omit<UsagePoint, 'start'>;
}
