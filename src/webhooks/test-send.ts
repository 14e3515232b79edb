// "Send test": a realistic sample event of one of the webhook's types, marked `test`, delivered right now (one
// attempt, no retries, no alerts) through the same path as real deliveries. The answer is the receiver's.
import type { Core } from '../core.js';
import { badRequest } from '../errors.js';
import { isEventType, type EventType } from './catalog.js';
import { attemptDelivery } from './delivery/attempt.js';
import { getWebhook } from './manage.js';
import { readPrivateTargets } from './private-targets.js';
import { queueDelivery, recordEvent } from './outbox.js';
import { sampleEvent } from './samples.js';

export interface TestResult {
  delivery_id: string;
  event_id: string;
  event_type: EventType;
  success: boolean;
  response: { status: number; headers: Record<string, string>; body: string } | null;
  duration_ms: number;
  error: string | null;
}

/** Sends a sample of `eventType` (default: the webhook's first subscribed type). Works on disabled webhooks too. */
export async function sendTestEvent(core: Core, webhookId: string, eventType?: unknown): Promise<TestResult> {
  const webhook = await getWebhook(core, webhookId);
  if (eventType !== undefined && !isEventType(eventType)) {
    throw badRequest('invalid_field', 'event_type: is not a known event type', { field: 'event_type' });
  }
  const type: EventType = eventType ?? webhook.events[0];
  const sample = sampleEvent(type, core.clock.now());
  const { eventId, deliveryId } = await core.db.transaction().execute(async (trx) => {
    const { resource, recordId, data, previousAttributes } = sample;
    const eventId = await recordEvent(trx, core, { type, resource, recordId, data, previousAttributes, test: true });
    const deliveryId = await queueDelivery(trx, core, { webhookId, eventId, eventType: type });
    return { eventId, deliveryId };
  });
  await readPrivateTargets(core); // the send below follows the stored setting as it is now, not seconds ago
  const result = await attemptDelivery(core, deliveryId);
  return {
    delivery_id: deliveryId,
    event_id: eventId,
    event_type: type,
    success: result.status === 'succeeded',
    response: result.responseStatus === null ? null
      : { status: result.responseStatus, headers: result.responseHeaders ?? {}, body: result.responseBody ?? '' },
    duration_ms: result.durationMs,
    error: result.error,
  };
}
