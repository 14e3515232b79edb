// Delivery-log retention: finished deliveries (succeeded, failed, cancelled) with their attempts, events no delivery
// refers to any more, and alerts are deleted once older than `log_retention_days` (setting; default
// WAYPOST_LOG_RETENTION_DAYS). Pending deliveries are never pruned. Runs on worker processes (startRetention).
import type { Core } from '../core.js';
import { iso } from '../records/normalize.js';
import { pruneStats } from './stats/read.js';

const DAY_MS = 86_400_000;
const BATCH = 500;

export interface PruneResult {
  cutoff: string;
  deliveries: number;
  attempts: number;
  events: number;
  alerts: number;
  /** Chart counter rows (webhook_stats, api_usage_hours) past what the charts show or the retention. */
  counters: number;
}

/** The effective retention in days: the console's setting, else WAYPOST_LOG_RETENTION_DAYS. */
export async function retentionDays(core: Core): Promise<number> {
  return core.settings.logRetentionDays();
}

/** Deletes log entries older than the retention, in small transactions so writers are never blocked for long. */
export async function pruneDeliveryLog(core: Core): Promise<PruneResult> {
  const cutoff = iso(core.clock.now() - (await retentionDays(core)) * DAY_MS);
  const result: PruneResult = { cutoff, deliveries: 0, attempts: 0, events: 0, alerts: 0, counters: 0 };

  for (;;) {
    const ids = (await core.db.selectFrom('deliveries').select('id')
      // created_at (indexed) rather than completed_at: a delivery finishes within an hour of its creation.
      .where('created_at', '<', cutoff)
      .where('status', '!=', 'pending')
      .limit(BATCH).execute()).map((r) => r.id);
    if (ids.length === 0) break;
    await core.db.transaction().execute(async (trx) => {
      const attempts = await trx.deleteFrom('delivery_attempts').where('delivery_id', 'in', ids).executeTakeFirst();
      const deliveries = await trx.deleteFrom('deliveries').where('id', 'in', ids).where('status', '!=', 'pending')
        .executeTakeFirst();
      result.attempts += Number(attempts.numDeletedRows);
      result.deliveries += Number(deliveries.numDeletedRows);
    });
    if (ids.length < BATCH) break;
  }

  const events = await core.db.deleteFrom('events')
    .where('created_at', '<', cutoff)
    .where((eb) => eb.not(eb.exists(
      eb.selectFrom('deliveries').select('deliveries.id').whereRef('deliveries.event_id', '=', 'events.id'),
    )))
    .executeTakeFirst();
  result.events = Number(events.numDeletedRows);
  const alerts = await core.db.deleteFrom('alerts').where('created_at', '<', cutoff).executeTakeFirst();
  result.alerts = Number(alerts.numDeletedRows);
  result.counters = await pruneStats(core, Date.parse(cutoff));

  if (result.deliveries + result.events + result.alerts > 0) core.log.info(result, 'delivery log pruned');
  return result;
}

/**
 * Prunes now and then every `intervalMs` (default hourly) until stopped. Call it where the worker runs
 * (`startWorker`), so one role does the cleaning. Failures are logged and retried at the next tick.
 */
export function startRetention(core: Core, intervalMs = 3_600_000): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  const tick = () => {
    running ??= pruneDeliveryLog(core)
      .then(() => undefined, (err: unknown) => core.log.error({ err }, 'delivery log pruning failed'))
      .finally(() => { running = null; });
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    // Waits for a prune in progress, so the caller can close the store afterwards.
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
