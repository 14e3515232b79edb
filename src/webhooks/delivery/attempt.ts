// One delivery attempt as typed steps (STYLE.md, after Svix): prepare → send → settle, ending in an Outcome
// (Succeeded | Retry(at) | Exhausted | Disabled | Cancelled, see schedule.ts). Every database write goes through the
// DeliveryQueue; failure e-mails go out after commit.
import type { Core } from '../../core.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { sendFailureAlert } from '../../alerts/index.js';
import type { DeliveryAttemptRow } from '../tables.js';
import { sendWebhook, type SendResult } from '../send.js';
import { deliveryQueue, type DeliveryQueue, type LoadedDelivery } from './queue/index.js';
import { buildRequest, type OutgoingRequest, type Prepared } from './request.js';
import { summary, waitForHolder, type AttemptResult } from './result.js';
import { deliveryMetrics } from './metrics.js';
import { chainOf, type Chain } from './order.js';
import { afterFailure, alertLevel, receiverSignal, type Outcome } from './schedule.js';
import { tracing, type SpanHandle } from '../../tracing/index.js';
import { attemptSpan } from './trace.js';

export type { AttemptResult };

/** Sends one request; the worker's tests may put a fake in its place. */
export type Sender = (core: Core, request: OutgoingRequest, signal?: AbortSignal) => Promise<SendResult>;

export const sendRequest: Sender = (core, r, signal) => sendWebhook(core.config, r.url, r.headers, r.body, { signal });

/**
 * Records a success: at once (a promise to await), or queued into the worker's next batch (nothing to await: the
 * delivery keeps its lease until the batch is written).
 */
export interface SuccessSink {
  record(attempt: DeliveryAttemptRow, now: string, webhookId: string, chain?: Chain): Promise<void> | void;
}

export interface AttemptOptions {
  /** The worker that holds the delivery's lease; without it, attemptDelivery takes the lease itself. */
  owner?: string;
  /** Aborts the send (graceful shutdown): no attempt is recorded and the lease is released. */
  signal?: AbortSignal;
  /** The rows the attempt needs, when the caller loaded them already (the worker's claims read them). */
  loaded?: LoadedDelivery;
  /** Where successes are recorded; the worker groups them into one transaction per batch. */
  successes?: SuccessSink;
  queue?: DeliveryQueue;
  send?: Sender;
}

/** Performs one attempt now and applies its outcome. Used by the worker and by "Send test". */
export async function attemptDelivery(core: Core, id: string, options: AttemptOptions = {}): Promise<AttemptResult> {
  const queue = options.queue ?? deliveryQueue(core);
  const manual = options.owner === undefined;
  const owner = options.owner ?? newId('man', core.clock.now());
  if (manual) {
    const now = core.clock.now();
    if ((await queue.take(id, owner, now, now + core.config.leaseMs)) === 'held') return waitForHolder(core, id);
  }
  const loaded = options.loaded ?? (await queue.load([id])).get(id);
  if (!loaded) throw new Error(`delivery ${id} does not exist`);

  // prepare
  const ready = prepare(loaded, manual);
  if (ready === null) return summary(loaded.delivery, 0);
  if (typeof ready === 'string') {
    await queue.cancel(id, ready, new Date(core.clock.now()).toISOString(), chainOf(loaded.delivery));
    deliveryMetrics(core).outcome('cancelled', loaded.delivery.webhook_id);
    const cancelled: Outcome = { kind: 'cancelled', reason: ready };
    return { ...summary(loaded.delivery, 0), status: 'cancelled', outcome: cancelled, cancelReason: ready };
  }

  const traced = tracing();
  if (traced) return attemptSpan(traced, ready, (span) => send(core, queue, ready, owner, options, span));
  return send(core, queue, ready, owner, options, null);
}

/** Builds and sends the request (with the attempt span's traceparent, tracing on), then settles the outcome. */
async function send(
  core: Core, queue: DeliveryQueue, ready: Prepared, owner: string, options: AttemptOptions, span: SpanHandle | null,
): Promise<AttemptResult> {
  const id = ready.delivery.id;
  let request: OutgoingRequest;
  let sent: SendResult;
  try {
    const built = buildRequest(core, ready);
    request = built instanceof Promise ? await built : built;
    if (span) request.headers.traceparent = span.traceparent();
  } catch (err) {
    // The secret cannot be opened (WAYPOST_SECRET_KEY missing or different): nothing is sent, and the attempt fails
    // like any other, so it shows in the log, follows the retry schedule and alerts.
    if (!(err instanceof AppError) || !err.code.startsWith('secret_key_')) throw err;
    request = { url: ready.webhook.url, headers: {}, body: '' };
    sent = { status: null, headers: null, body: null, durationMs: 0, error: `not sent: ${err.message}` };
    return settle(core, queue, ready, request, sent, options.successes ?? recordAtOnce(queue));
  }
  sent = await (options.send ?? sendRequest)(core, request, options.signal);
  if (options.signal?.aborted) {
    await queue.release(id, owner);
    return { ...summary(ready.delivery, 0), error: 'aborted: the worker is shutting down' };
  }
  deliveryMetrics(core).attempt(sent.durationMs);
  return settle(core, queue, ready, request, sent, options.successes ?? recordAtOnce(queue));
}

/** What to send; null when the delivery is final already; a string: why it is cancelled instead of sent. */
function prepare({ delivery, webhook, event }: LoadedDelivery, manual: boolean): Prepared | string | null {
  if (delivery.status !== 'pending') return null;
  // The webhook may have been deleted or disabled since the delivery was queued. An explicit attempt, and an
  // admin's "Send test" sample (whoever picks it up), may still reach a disabled webhook.
  if (!webhook || webhook.deleted_at !== null) return 'webhook deleted';
  if (!event) return 'event no longer exists';
  if (webhook.active !== 1 && !manual && event.test !== 1) {
    return `webhook disabled${webhook.disabled_reason ? `: ${webhook.disabled_reason}` : ''}`;
  }
  return { delivery, webhook, event, attempt: Number(delivery.attempts) + 1 };
}

/** Records the attempt and its outcome: a success (batched by the worker) or a failure with what follows it. */
async function settle(
  core: Core, queue: DeliveryQueue, p: Prepared, request: OutgoingRequest, sent: SendResult, successes: SuccessSink,
): Promise<AttemptResult> {
  const success = sent.status === 200;
  const error = success ? null : (sent.error ?? `HTTP ${sent.status}: expected 200`);
  const nowMs = core.clock.now();
  const now = new Date(nowMs).toISOString();
  const attemptRow: DeliveryAttemptRow = {
    id: newId('att', nowMs),
    delivery_id: p.delivery.id,
    attempt: p.attempt,
    started_at: new Date(nowMs - sent.durationMs).toISOString(),
    duration_ms: sent.durationMs,
    request_url: request.url,
    request_headers: JSON.stringify(request.headers),
    request_body: request.body,
    response_status: sent.status,
    response_headers: sent.headers ? JSON.stringify(sent.headers) : null,
    response_body: sent.body,
    error,
    success: success ? 1 : 0,
  };
  // Made whole in one literal (an object spread here cost about 3 µs a delivery in the worker's profile).
  const result = (outcome: Outcome, nextAttemptAt: string | null, cancelReason: string | null): AttemptResult => ({
    deliveryId: p.delivery.id,
    attempt: p.attempt,
    status: outcome.kind === 'succeeded' ? 'succeeded' : outcome.kind === 'retry' ? 'pending'
      : outcome.kind === 'exhausted' || outcome.kind === 'disabled' ? 'failed' : 'cancelled',
    outcome,
    responseStatus: sent.status,
    responseHeaders: sent.headers,
    responseBody: sent.body,
    durationMs: sent.durationMs,
    error,
    nextAttemptAt,
    cancelReason,
  });
  if (success) {
    const written = successes.record(attemptRow, now, p.webhook.id, chainOf(p.delivery));
    if (written) await written;
    deliveryMetrics(core).outcome('succeeded', p.webhook.id);
    return result({ kind: 'succeeded' }, null, null);
  }

  const test = p.event.test === 1;
  const signal = receiverSignal(sent.status, sent.headers, nowMs);
  const planned = afterFailure(p.attempt, core.config.retryDelaysMs, nowMs, test, signal);
  const totalAttempts = core.config.retryDelaysMs.length + 1;
  const level = alertLevel(planned, p.attempt, totalAttempts, test);
  const disable = planned.kind === 'disabled' ? { webhookId: p.webhook.id, reason: planned.reason }
    : level === 'critical'
      ? { webhookId: p.webhook.id, reason: `${p.attempt} consecutive failed attempts for delivery ${p.delivery.id} `
        + `(last error: ${truncate(error ?? '', 200)})` }
      : null;
  const written = await queue.recordFailure({
    attempt: attemptRow,
    webhookId: p.webhook.id,
    status: planned.kind === 'retry' ? 'pending' : 'failed',
    nextAttemptAt: planned.kind === 'retry' ? planned.at : null,
    now,
    disable,
    chain: chainOf(p.delivery),
  });
  deliveryMetrics(core).outcome(written.status === 'cancelled' ? 'cancelled' : planned.kind, p.webhook.id);
  if (written.status === 'cancelled') {
    const reason = written.cancelReason ?? 'cancelled';
    return result({ kind: 'cancelled', reason }, null, written.cancelReason);
  }
  const nextAttemptAt = planned.kind === 'retry' ? new Date(planned.at).toISOString() : null;
  if (level) {
    await sendFailureAlert(core, {
      level, webhook: p.webhook, deliveryId: p.delivery.id, eventId: p.event.id, eventType: p.event.type,
      attempt: p.attempt, totalAttempts, error: error ?? '', nextAttemptAt,
      disabledReason: planned.kind === 'disabled' ? planned.reason : null,
    }).catch((err) => core.log.error({ err, delivery: p.delivery.id }, 'could not record the failure alert'));
  }
  return result(planned, nextAttemptAt, null);
}

function recordAtOnce(queue: DeliveryQueue): SuccessSink {
  return { record: (attempt, now, webhookId, chain) => queue.recordSuccesses([{ attempt, now, webhookId, chain }]) };
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
