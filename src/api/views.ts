// The JSON shapes of the API's admin routes (key usage). Imports nothing, so the console (web/, compiled for the
// browser) uses these very types through src/admin/console-types.ts.

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
