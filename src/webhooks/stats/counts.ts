// The chart counters' write side: what a batch of attempts adds to webhook_stats (per minute, per hour and the
// webhook's health row), as rows made in memory and one upsert that adds them (n = n + excluded.n). It runs in the
// transaction or statement that records the attempts (delivery/queue/), so the counts match the delivery log, and
// concurrent workers' increments add up. The rows are sorted by key: every writer locks them in the same order, and
// the health row shares the upsert (its own statement could lock in another order and deadlock two workers).
import { sql, type Kysely, type OnConflictBuilder } from 'kysely';
import type { Database } from '../../store/tables.js';
import type { WebhookStatRow } from '../tables.js';

/** Upper bounds (ms) of the latency histogram's buckets l0…l10; l11 holds the slower ones. */
export const LATENCY_BOUNDS_MS = [10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000] as const;
export const LATENCY_COLUMNS = [
  'l0', 'l1', 'l2', 'l3', 'l4', 'l5', 'l6', 'l7', 'l8', 'l9', 'l10', 'l11',
] as const satisfies ReadonlyArray<keyof WebhookStatRow>;

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

export type StatOutcome = 'succeeded' | 'retried' | 'failed';

/** One attempt as the counters see it: which webhook, when it ended (the injectable clock), how long it took. */
export interface StatEntry {
  webhookId: string;
  atMs: number;
  durationMs: number;
  outcome: StatOutcome;
}

/** The histogram bucket of a latency. */
export function latencyBucket(ms: number): number {
  const i = LATENCY_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return i === -1 ? LATENCY_BOUNDS_MS.length : i;
}

function emptyRow(webhookId: string, unit: WebhookStatRow['unit'], bucket: number, outcome: WebhookStatRow['outcome'])
  : WebhookStatRow {
  return {
    webhook_id: webhookId, unit, bucket, outcome, n: 0,
    l0: 0, l1: 0, l2: 0, l3: 0, l4: 0, l5: 0, l6: 0, l7: 0, l8: 0, l9: 0, l10: 0, l11: 0,
    last_success: null, last_failure: null, streak: 0,
  };
}

/**
 * The rows a batch adds, one per key, sorted by key. The health row's streak is the batch's own run at its end
 * (successes of a batch are all successes; a failure is written alone), which the upsert joins to the stored one.
 */
export function statRows(entries: readonly StatEntry[]): WebhookStatRow[] {
  const rows = new Map<string, WebhookStatRow>();
  const row = (webhookId: string, unit: WebhookStatRow['unit'], bucket: number, outcome: WebhookStatRow['outcome']) => {
    const key = `${webhookId}\u0000${unit}\u0000${String(bucket).padStart(16, '0')}\u0000${outcome}`;
    let r = rows.get(key);
    if (!r) rows.set(key, r = emptyRow(webhookId, unit, bucket, outcome));
    return r;
  };
  for (const e of entries) {
    const column = LATENCY_COLUMNS[latencyBucket(e.durationMs)];
    for (const [unit, size] of [['m', MINUTE_MS], ['h', HOUR_MS]] as const) {
      const r = row(e.webhookId, unit, Math.floor(e.atMs / size) * size, e.outcome);
      r.n += 1;
      r[column] += 1;
    }
    const health = row(e.webhookId, 'all', 0, '');
    health.n += 1;
    if (e.outcome === 'succeeded') {
      health.last_success = Math.max(health.last_success ?? 0, e.atMs);
      health.streak = health.streak > 0 ? health.streak + 1 : 1;
    } else {
      health.last_failure = Math.max(health.last_failure ?? 0, e.atMs);
      health.streak = health.streak < 0 ? health.streak - 1 : -1;
    }
  }
  return [...rows.keys()].sort().map((k) => rows.get(k)!);
}

/** ON CONFLICT … DO UPDATE that adds the new row to the stored one (both dialects; PostgreSQL's success CTE too). */
export function addToStored(oc: OnConflictBuilder<Database, 'webhook_stats'>) {
  const add = (c: string) => sql<number>`webhook_stats.${sql.ref(c)} + excluded.${sql.ref(c)}`;
  const later = (c: string) => sql<number | null>`CASE WHEN webhook_stats.${sql.ref(c)} IS NULL
    OR excluded.${sql.ref(c)} > webhook_stats.${sql.ref(c)}
    THEN excluded.${sql.ref(c)} ELSE webhook_stats.${sql.ref(c)} END`;
  return oc.columns(['webhook_id', 'unit', 'bucket', 'outcome']).doUpdateSet({
    n: add('n'),
    ...Object.fromEntries(LATENCY_COLUMNS.map((c) => [c, add(c)])),
    last_success: later('last_success'),
    last_failure: later('last_failure'),
    // A run of the same sign continues the stored streak; the other sign starts a new one; 0 (counter rows) keeps it.
    streak: sql<number>`CASE WHEN excluded.streak = 0 THEN webhook_stats.streak
      WHEN (excluded.streak > 0 AND webhook_stats.streak > 0) OR (excluded.streak < 0 AND webhook_stats.streak < 0)
      THEN webhook_stats.streak + excluded.streak ELSE excluded.streak END`,
  });
}

/** The upsert of a batch's rows (in a transaction that records its attempts). */
export function upsertStats(db: Kysely<Database>, rows: readonly WebhookStatRow[]) {
  return db.insertInto('webhook_stats').values(rows as WebhookStatRow[]).onConflict(addToStored);
}
