// Delivery-log retention: finished deliveries (succeeded, failed, cancelled) with their attempts, and alerts are
// deleted once older than `log_retention_days` (setting; default WAYPOST_LOG_RETENTION_DAYS). Pending deliveries are
// never pruned. Within that, attempts keep the payload sent (`payload_retention_days`) and the receiver's answer
// (`response_retention_days`) a shorter time when set: the bodies are blanked, the rows stay. Events have the feed's
// own retention (WAYPOST_EVENT_RETENTION_DAYS): older ones are deleted once no delivery row refers to them. Runs on
// worker processes (startRetention, which prunes the audit log too).
import type { Core } from '../core.js';
import { iso } from '../records/normalize.js';
import { readSetting, writeSetting } from '../store/settings.js';
import { pruneStats } from './stats/read.js';
import { pruneAuditLog } from '../audit/retention.js';

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
  /** Attempts whose payload sent, and whose receiver's answer, were blanked by this run. */
  payloads: number;
  responses: number;
}

/** The two bodies an attempt keeps for a time of their own. */
export type AttemptBody = 'payload' | 'response';

/**
 * Settings rows holding how far each body's pruning has gone: the greatest attempt id it blanked. Attempt ids begin
 * with their time, so the next run walks the primary key on from there: each run reads only the attempts it blanks.
 */
const PRUNED_TO: Record<AttemptBody, string> = { payload: 'payload_pruned_to', response: 'response_pruned_to' };

/** The effective retention in days: the console's setting, else WAYPOST_LOG_RETENTION_DAYS. */
export async function retentionDays(core: Core): Promise<number> {
  return core.settings.logRetentionDays();
}

/** Deletes log entries older than the retention, in small transactions so writers are never blocked for long. */
export async function pruneDeliveryLog(core: Core): Promise<PruneResult> {
  const cutoff = iso(core.clock.now() - (await retentionDays(core)) * DAY_MS);
  const result: PruneResult = {
    cutoff, deliveries: 0, attempts: 0, events: 0, alerts: 0, counters: 0, payloads: 0, responses: 0,
  };

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

  const keep = await core.settings.bodyRetentionDays();
  result.payloads = await pruneBodies(core, 'payload', keep.payload);
  result.responses = await pruneBodies(core, 'response', keep.response);
  result.events = await pruneEvents(core);
  const alerts = await core.db.deleteFrom('alerts').where('created_at', '<', cutoff).executeTakeFirst();
  result.alerts = Number(alerts.numDeletedRows);
  result.counters = await pruneStats(core, Date.parse(cutoff));

  if (result.deliveries + result.events + result.alerts + result.payloads + result.responses > 0) {
    core.log.info(result, 'delivery log pruned');
  }
  return result;
}

/**
 * Blanks one body of the attempts older than `days` (null: kept as long as the attempt), 500 at a time in the primary
 * key's order from where the last run stopped. Each batch and the new mark are one transaction, so a run cut short
 * neither skips nor repeats. An attempt made now and then for an old pending delivery is newer than the cutoff: its
 * own time, not its delivery's, is what counts. Workers that prune at the same time blank the same rows (harmless).
 */
export async function pruneBodies(core: Core, body: AttemptBody, days: number | null): Promise<number> {
  if (days === null) return 0;
  const before = attemptIdAt(core.clock.now() - days * DAY_MS);
  let from = await readSetting(core.db, PRUNED_TO[body]) ?? '';
  let blanked = 0;
  while (from < before) {
    const ids = (await bodyBatch(core.db, from, before).execute()).map((r) => r.id);
    if (ids.length === 0) break;
    const to = ids[ids.length - 1];
    await core.db.transaction().execute(async (trx) => {
      const done = await blankBodies(trx, body, from, to).executeTakeFirst();
      blanked += Number(done.numUpdatedRows);
      await writeSetting(trx, PRUNED_TO[body], to);
    });
    from = to;
    if (ids.length < BATCH) break;
  }
  return blanked;
}

/** The next batch of attempts to blank: a range of the primary key (test/webhooks/body-retention-plan.test.ts). */
export const bodyBatch = (db: Core['db'], from: string, before: string) => db.selectFrom('delivery_attempts')
  .select('id').where('id', '>', from).where('id', '<', before).orderBy('id').limit(BATCH);

/**
 * Blanks one body of the batch (from, to]: the same range of the key, which no new attempt can join (its id is newer
 * than the cutoff). A range rather than the 500 ids: PostgreSQL scanned a small table for a list that long.
 */
export const blankBodies = (db: Core['db'], body: AttemptBody, from: string, to: string) => db
  .updateTable('delivery_attempts')
  .set(body === 'payload' ? { request_body: '' } : { response_body: null, response_headers: null })
  .where('id', '>', from).where('id', '<=', to);

/**
 * What the delivery log says in place of a blanked body, e.g. "Payload no longer kept (older than 7 days)."; null
 * while it is kept. An attempt whose id is at most the body's mark has lost it.
 */
export async function prunedNotes(core: Core): Promise<(attemptId: string, body: AttemptBody) => string | null> {
  const [payload, response] = await Promise.all([
    readSetting(core.db, PRUNED_TO.payload), readSetting(core.db, PRUNED_TO.response),
  ]);
  const marks: Record<AttemptBody, string> = { payload: payload ?? '', response: response ?? '' };
  const days = await core.settings.bodyRetentionDays();
  const note = (body: AttemptBody) => {
    const n = days[body];
    const why = n === null ? 'removed by an earlier retention setting' : `older than ${n} day${n === 1 ? '' : 's'}`;
    return `${body === 'payload' ? 'Payload' : 'Response'} no longer kept (${why}).`;
  };
  return (attemptId, body) => (attemptId <= marks[body] ? note(body) : null);
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

/** The smallest id with `prefix` made at `ms` (ids are `prefix_` + 12 hex digits of milliseconds + 16 more). */
const idAt = (prefix: string, ms: number): string => `${prefix}_${Math.max(0, Math.floor(ms)).toString(16)
  .padStart(12, '0')}`;
export const eventIdAt = (ms: number): string => idAt('evt', ms);
const attemptIdAt = (ms: number): string => idAt('att', ms);

/**
 * Prunes the delivery log and the audit log now and then every `intervalMs` (default hourly) until stopped. Call it
 * where the worker runs (`startWorker`), so one role does the cleaning. Failures are logged and retried at the next
 * tick.
 */
export function startRetention(core: Core, intervalMs = 3_600_000): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  const tick = () => {
    running ??= pruneDeliveryLog(core)
      .then(() => undefined, (err: unknown) => core.log.error({ err }, 'delivery log pruning failed'))
      // The audit log's own retention (src/audit/retention.ts), on the same tick.
      .then(() => pruneAuditLog(core))
      .then(
        (audit) => { if (audit > 0) core.log.info({ audit }, 'audit log pruned'); },
        (err: unknown) => core.log.error({ err }, 'audit log pruning failed'),
      )
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
