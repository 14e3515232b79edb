// What an attempt leads to, as values: pure functions of the attempt number, the configured delays and the receiver's
// answer, so the retry schedule, the receiver signals and the alerts can be tested without a database, a receiver
// or a clock.
import type { AlertLevel } from '../../alerts/index.js';

/** The end of one attempt. `retryAfterMs`: the receiver's Retry-After, when it postponed the retry to `at`. */
export type Outcome =
  | { kind: 'succeeded' }
  | { kind: 'retry'; at: number; retryAfterMs?: number }
  | { kind: 'exhausted' }
  | { kind: 'disabled'; reason: string }
  | { kind: 'cancelled'; reason: string };

/** What the receiver asked for (DESIGN.md "Receiver signals"): wait at least `ms` (429/503), or stop for good (410). */
export type ReceiverSignal = { kind: 'retry-after'; ms: number } | { kind: 'gone' };

export const GONE_REASON = 'the receiver answered 410 Gone';
/** A Retry-After postpones the next attempt by at most this much beyond the schedule's delay. */
export const RETRY_AFTER_CAP_MS = 3_600_000;

/**
 * When the next attempt is due after attempt `attempt` (1-based) failed at `now`: after
 * retryDelaysMs[attempt - 1], or 'exhausted' when every delay is used (retryDelaysMs.length + 1 attempts in all).
 */
export function schedule(attempt: number, retryDelaysMs: readonly number[], now: number): number | 'exhausted' {
  if (attempt > retryDelaysMs.length) return 'exhausted';
  return now + retryDelaysMs[attempt - 1];
}

/**
 * A Retry-After value in ms from `now`: delay-seconds or an HTTP-date (RFC 9110 §10.2.3); null when absent or
 * unreadable, 0 for a date in the past.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // Date.parse reads the IMF-fixdate form; only a value that names a weekday or GMT is taken as a date.
  if (!/GMT$|^[A-Za-z]{3},/.test(v)) return null;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The signal in an answer: Retry-After counts on a 429 or 503 only; a 410 Gone asks to stop sending. */
export function receiverSignal(
  status: number | null, headers: Readonly<Record<string, string>> | null, now: number,
): ReceiverSignal | null {
  if (status === 410) return { kind: 'gone' };
  if ((status !== 429 && status !== 503) || !headers) return null;
  const name = Object.keys(headers).find((k) => k.toLowerCase() === 'retry-after');
  const ms = parseRetryAfter(name === undefined ? undefined : headers[name], now);
  return ms === null ? null : { kind: 'retry-after', ms };
}

/** The delay before the next attempt: the schedule's, or the Retry-After when longer (capped at delay + 1 h). */
export function postponed(scheduledDelayMs: number, retryAfterMs: number): number {
  if (retryAfterMs <= scheduledDelayMs) return scheduledDelayMs;
  return Math.min(retryAfterMs, scheduledDelayMs + RETRY_AFTER_CAP_MS);
}

/**
 * A failed attempt's outcome. A "Send test" sample is tried once and disables nothing. A 410 disables the webhook at
 * once; a Retry-After longer than the schedule's delay postpones the retry (never the end of the schedule).
 */
export function afterFailure(
  attempt: number, retryDelaysMs: readonly number[], now: number, test: boolean, signal: ReceiverSignal | null = null,
): Outcome {
  if (test) return { kind: 'exhausted' };
  if (signal?.kind === 'gone') return { kind: 'disabled', reason: GONE_REASON };
  const next = schedule(attempt, retryDelaysMs, now);
  if (next === 'exhausted') return { kind: 'exhausted' };
  if (signal?.kind !== 'retry-after') return { kind: 'retry', at: next };
  const delay = postponed(next - now, signal.ms);
  if (delay === next - now) return { kind: 'retry', at: next };
  return { kind: 'retry', at: now + delay, retryAfterMs: signal.ms };
}

/**
 * The alert an outcome raises: a warning when one of the last two retries is scheduled (attempts 3 and 4 of 5 failed),
 * critical when the webhook is disabled (exhausted, or 410 Gone). Test samples raise none.
 */
export function alertLevel(outcome: Outcome, attempt: number, totalAttempts: number, test: boolean): AlertLevel | null {
  if (test) return null;
  if (outcome.kind === 'exhausted' || outcome.kind === 'disabled') return 'critical';
  if (outcome.kind === 'retry' && attempt >= totalAttempts - 2) return 'warning';
  return null;
}

/** The signal as the delivery log says it, from an attempt's recorded answer; null when it changed nothing. */
export function signalNote(
  attempt: number, retryDelaysMs: readonly number[], test: boolean,
  response: { status: number; headers: Readonly<Record<string, string>>; answeredAt: number } | null,
): string | null {
  if (!response || test) return null;
  const signal = receiverSignal(response.status, response.headers, response.answeredAt);
  if (!signal) return null;
  if (signal.kind === 'gone') return 'webhook disabled: 410 Gone';
  if (attempt > retryDelaysMs.length) return null;
  const delay = postponed(retryDelaysMs[attempt - 1], signal.ms);
  return delay === retryDelaysMs[attempt - 1] ? null : `postponed by Retry-After: ${Math.round(delay / 1000)} s`;
}
