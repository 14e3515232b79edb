// The JSON shapes the admin API answers with: the delivery log's (src/webhooks/views.ts), the alerts'
// (src/alerts/views.ts) and API key usage. These files import nothing else, so the console (web/, compiled
// separately for the browser) uses these very types instead of copies.
export type {
  AttemptView, DeliveryDetail, DeliveryStatus, DeliveryView, LogWebhook, Page, RecoverJobView,
} from '../webhooks/views.js';
export type { AlertLevel, AlertStatus, AlertView } from '../alerts/views.js';

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
