// What an attempt answers its caller ("Send test", `deliveries retry`, the tests): the receiver's answer and the
// delivery's state afterwards, also when no attempt was made (already final, cancelled, held by a worker).
import type { Core } from '../../core.js';
import type { DeliveryAttemptRow, DeliveryRow, DeliveryStatus } from '../tables.js';
import type { Outcome } from './schedule.js';

export interface AttemptResult {
  deliveryId: string;
  /** The number of the attempt made (1-based); 0 when none was made (cancelled, already final). */
  attempt: number;
  /** The delivery's status afterwards: succeeded, pending (a retry is scheduled), failed (exhausted) or cancelled. */
  status: DeliveryStatus;
  /** How the attempt ended; null when none was made. */
  outcome: Outcome | null;
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  durationMs: number;
  error: string | null;
  /** When the next attempt is due (ISO), if one is scheduled. */
  nextAttemptAt: string | null;
  cancelReason: string | null;
}

/** The result for a delivery on which no attempt was made now. */
export function summary(d: DeliveryRow, attempt: number): AttemptResult {
  return {
    deliveryId: d.id,
    attempt,
    status: d.status,
    outcome: null,
    responseStatus: d.last_status,
    responseHeaders: null,
    responseBody: null,
    durationMs: 0,
    error: d.last_error,
    nextAttemptAt: d.next_attempt_at !== null && d.status === 'pending'
      ? new Date(Number(d.next_attempt_at)).toISOString()
      : null,
    cancelReason: d.cancel_reason,
  };
}

/** A worker holds the delivery right now: wait for its attempt and answer with that. */
export async function waitForHolder(core: Core, deliveryId: string): Promise<AttemptResult> {
  const read = () => core.db.selectFrom('deliveries').selectAll().where('id', '=', deliveryId)
    .executeTakeFirstOrThrow();
  const before = await read();
  const deadline = Date.now() + core.config.deliveryTimeoutMs + 5_000;
  let current = before;
  const waiting = () => current.status === 'pending' && current.attempts === before.attempts
    && current.lease_owner !== null;
  while (Date.now() < deadline && waiting()) {
    await new Promise((r) => setTimeout(r, 50));
    current = await read();
  }
  const last = await core.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', deliveryId)
    .orderBy('attempt', 'desc').limit(1).executeTakeFirst();
  return { ...summary(current, last?.attempt ?? 0), ...(last ? fromAttemptRow(last) : {}) };
}

function fromAttemptRow(a: DeliveryAttemptRow): Partial<AttemptResult> {
  return {
    responseStatus: a.response_status,
    responseHeaders: a.response_headers ? JSON.parse(a.response_headers) : null,
    responseBody: a.response_body,
    durationMs: a.duration_ms,
    error: a.error,
  };
}
