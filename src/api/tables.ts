// Table types owned by the API capability (API keys live in the read-model migration; usage counters here).

export interface ApiUsageRow {
  key_id: string;
  day: string; // YYYY-MM-DD (UTC)
  requests: number;
  client_errors: number; // 4xx answers, 429 included
  rate_limited: number; // 429 answers
}

export interface ApiTables {
  api_usage: ApiUsageRow;
}
