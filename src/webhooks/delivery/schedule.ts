// What an attempt leads to, as values: pure functions of the attempt number and the configured delays, so the
// retry schedule and the alerts can be tested without a database, a receiver or a clock.
import type { AlertLevel } from '../../alerts/index.js';

/** The end of one attempt. */
export type Outcome =
  | { kind: 'succeeded' }
  | { kind: 'retry'; at: number }
  | { kind: 'exhausted' }
  | { kind: 'cancelled'; reason: string };

/**
 * When the next attempt is due after attempt `attempt` (1-based) failed at `now`: after
 * retryDelaysMs[attempt - 1], or 'exhausted' when every delay is used (retryDelaysMs.length + 1 attempts in all).
 */
export function schedule(attempt: number, retryDelaysMs: readonly number[], now: number): number | 'exhausted' {
  if (attempt > retryDelaysMs.length) return 'exhausted';
  return now + retryDelaysMs[attempt - 1];
}

/** A failed attempt's outcome. A "Send test" sample is tried once. */
export function afterFailure(attempt: number, retryDelaysMs: readonly number[], now: number, test: boolean): Outcome {
  const next = test ? 'exhausted' : schedule(attempt, retryDelaysMs, now);
  return next === 'exhausted' ? { kind: 'exhausted' } : { kind: 'retry', at: next };
}

/**
 * The alert an outcome raises: a warning when one of the last two retries is scheduled (attempts 3 and 4 of 5 failed),
 * critical when the delivery is exhausted (the webhook is disabled). Test samples raise none.
 */
export function alertLevel(outcome: Outcome, attempt: number, totalAttempts: number, test: boolean): AlertLevel | null {
  if (test) return null;
  if (outcome.kind === 'exhausted') return 'critical';
  if (outcome.kind === 'retry' && attempt >= totalAttempts - 2) return 'warning';
  return null;
}
