// Table types owned by the API capability (API keys live in the read-model migration; usage counters here).

export interface ApiUsageRow {
  key_id: string;
  day: string; // YYYY-MM-DD (UTC)
  requests: number;
  client_errors: number; // 4xx answers, 429 included
  rate_limited: number; // 429 answers
}

/** SQLite only: bumped by triggers when trips, customers, bookings, payments or API keys change (migration 0005). */
export interface ChangeCounterRow {
  name: string;
  generation: number;
}

export interface ApiTables {
  api_usage: ApiUsageRow;
  change_counters: ChangeCounterRow;
}
