// The JSON shapes the admin API answers with: the delivery log's (src/webhooks/views.ts), the alerts'
// (src/alerts/views.ts), API key usage (src/api/views.ts), the Events view (src/feed/views.ts), the privacy doors
// (src/privacy/views.ts) and the audit log (src/audit/views.ts). These files import nothing else, so the console
// (web/, compiled separately for the browser) uses these very types instead of copies. No capability imports this file.
export type {
  AttemptView, DeliveryDetail, DeliveryStatus, DeliveryView, LogWebhook, MissedWhileDisabled, Page, RecoverJobView,
} from '../webhooks/views.js';
export type { AlertLevel, AlertStatus, AlertView } from '../alerts/views.js';
export type { KeyUsage, UsageCounts } from '../api/views.js';
export type {
  EventDeliveryRef, EventDetail, EventListItem, EventListPage, EventOutcomeKind, EventWebhookOutcome,
} from '../feed/views.js';
export type { ErasureCounts, ErasurePreview, ErasureStep, ErasureView, ReceivedBy } from '../privacy/views.js';
export type { ActorType, AuditAction, AuditDetails, AuditEntryView, AuditPage } from '../audit/views.js';
export type {
  ChartRange, DeliveryPoint, KeyUsageSeries, UsagePoint, WebhookHealth, WebhookStatsView,
} from '../webhooks/stats/views.js';
