// Table types owned by the API capability (API keys live in the read-model migration; usage counters here).

export interface ApiUsageRow {
  key_id: string;
  day: string; // YYYY-MM-DD (UTC)
  requests: number;
  client_errors: number; // 4xx answers, 429 included
  rate_limited: number; // 429 answers
}

/** Each key's calls per hour by status class (migration 0025): the console's usage chart. */
export interface ApiUsageHourRow {
  key_id: string;
  hour: number; // ms: the hour's start (UTC)
  ok: number; // 2xx and 3xx (304 Not Modified) answers
  client_errors: number; // 4xx answers other than 429
  rate_limited: number; // 429 answers
  server_errors: number; // 5xx answers
}

/** SQLite only: bumped by triggers when trips, customers, bookings, payments or API keys change (migration 0005). */
export interface ChangeCounterRow {
  name: string;
  generation: number;
}

export interface ApiTables {
  api_usage: ApiUsageRow;
  api_usage_hours: ApiUsageHourRow;
  change_counters: ChangeCounterRow;
}
