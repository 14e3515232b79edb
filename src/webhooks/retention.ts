// Delivery-log retention: finished deliveries (succeeded, failed, cancelled) with their attempts, and alerts are
// deleted once older than `log_retention_days` (setting; default WAYPOST_LOG_RETENTION_DAYS). Pending deliveries are
// never pruned. Events have the feed's own retention (WAYPOST_EVENT_RETENTION_DAYS): older ones are deleted once no
// delivery row refers to them. Runs on worker processes (startRetention).
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

  result.events = await pruneEvents(core);
  const alerts = await core.db.deleteFrom('alerts').where('created_at', '<', cutoff).executeTakeFirst();
  result.alerts = Number(alerts.numDeletedRows);
  result.counters = await pruneStats(core, Date.parse(cutoff));

  if (result.deliveries + result.events + result.alerts > 0) core.log.info(result, 'delivery log pruned');
  return result;
}

/**
 * Deletes the events older than the feed's retention that no delivery row refers to (a delivery keeps its event
 * while the log keeps it), walking the id order (ids begin with their time) 500 at a time.
 */
async function pruneEvents(core: Core): Promise<number> {
  const before = eventIdAt(core.clock.now() - core.config.eventRetentionDays * DAY_MS);
  let from = '';
  let deleted = 0;
  for (;;) {
    const ids = (await core.db.selectFrom('events').select('id').where('id', '>', from).where('id', '<', before)
      .orderBy('id').limit(BATCH).execute()).map((r) => r.id);
    if (ids.length === 0) break;
    from = ids[ids.length - 1];
    const done = await core.db.deleteFrom('events').where('id', 'in', ids)
      .where((eb) => eb.not(eb.exists(
        eb.selectFrom('deliveries').select('deliveries.id').whereRef('deliveries.event_id', '=', 'events.id'),
      )))
      .executeTakeFirst();
    deleted += Number(done.numDeletedRows);
    if (ids.length < BATCH) break;
  }
  // An off period whose events are all gone has nothing left to send (recover/missed.ts).
  await core.db.deleteFrom('webhook_off_periods')
    .where('on_at', '<', iso(core.clock.now() - core.config.eventRetentionDays * DAY_MS)).execute();
  return deleted;
}

/** The smallest event id made at `ms` (ids are `evt_` + 12 hex digits of milliseconds + 16 more). */
export const eventIdAt = (ms: number): string => `evt_${Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0')}`;

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
