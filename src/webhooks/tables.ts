// Table types owned by the webhooks capability (webhooks, events, deliveries, attempts, alerts).
export interface WebhookTables {}
