// The chart endpoints' read side: a webhook's deliveries by outcome and latency over a range, and every webhook's
// health, answered from webhook_stats alone (an index range per webhook: never a scan of the delivery log).
import { sql } from 'kysely';
import type { Core } from '../../core.js';
import { notFound } from '../../errors.js';
import type { WebhookStatRow } from '../tables.js';
import { LATENCY_BOUNDS_MS, LATENCY_COLUMNS } from './counts.js';
import { planRange, stepCount, type RangePlan } from './range.js';
import type { DeliveryPoint, WebhookHealth, WebhookStatsView } from './views.js';

type Histogram = number[];
interface Acc { succeeded: number; retried: number; failed: number; latency: Histogram }

const emptyAcc = (): Acc => ({ succeeded: 0, retried: 0, failed: 0, latency: LATENCY_COLUMNS.map(() => 0) });
const iso = (ms: number) => new Date(ms).toISOString();

/** The upper bound of the bucket holding the q-quantile (bucket precision; the slowest bucket reads as its floor). */
export function quantileMs(histogram: readonly number[], q: number): number | null {
  const total = histogram.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i];
    if (seen >= rank) return LATENCY_BOUNDS_MS[Math.min(i, LATENCY_BOUNDS_MS.length - 1)];
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1];
}

type Sums = Pick<WebhookStatRow, 'webhook_id' | 'outcome' | 'n' | (typeof LATENCY_COLUMNS)[number]> & { i: number };

function add(acc: Acc, row: Sums): void {
  if (row.outcome === 'succeeded' || row.outcome === 'retried' || row.outcome === 'failed') {
    acc[row.outcome] += Number(row.n);
  }
  LATENCY_COLUMNS.forEach((c, i) => { acc.latency[i] += Number(row[c]); });
}

function point(acc: Acc): Omit<DeliveryPoint, 'start'> {
  return {
    succeeded: acc.succeeded, retried: acc.retried, failed: acc.failed,
    p50_ms: quantileMs(acc.latency, 0.5), p95_ms: quantileMs(acc.latency, 0.95),
  };
}

/**
 * The counters of these webhooks in the range, summed by the database per webhook, outcome and step (`perStep`) or
 * over the whole range: one index range of webhook_stats (minute rows for a 24 h chart, hour rows otherwise), and a
 * few hundred rows back instead of thousands (each row handed to JavaScript cost more than summing it).
 */
export function rangeSums(core: Core, webhookIds: readonly string[], plan: RangePlan, unit: 'm' | 'h', perStep = true) {
  const step = perStep
    ? sql<number>`(bucket - cast(${plan.from} as bigint)) / cast(${plan.stepMs} as bigint)` : sql<number>`0`;
  return core.db.selectFrom('webhook_stats')
    .select((eb) => [
      'webhook_id', 'outcome', step.as('i'), eb.fn.sum<number>('n').as('n'),
      ...LATENCY_COLUMNS.map((c) => eb.fn.sum<number>(c).as(c)),
    ])
    .where('webhook_id', 'in', webhookIds)
    .where('unit', '=', unit)
    .where('bucket', '>=', plan.from)
    .where('bucket', '<', plan.to)
    .groupBy(perStep ? ['webhook_id', 'outcome', 'i'] : ['webhook_id', 'outcome']);
}

export function healthRows(core: Core, webhookIds: readonly string[]) {
  return core.db.selectFrom('webhook_stats').selectAll()
    .where('webhook_id', 'in', webhookIds).where('unit', '=', 'all').where('bucket', '=', 0).where('outcome', '=', '');
}

function health(webhookId: string, acc: Acc, row: WebhookStatRow | undefined): WebhookHealth {
  const attempts = acc.succeeded + acc.retried + acc.failed;
  const streak = row ? Number(row.streak) : 0;
  return {
    webhook_id: webhookId,
    success_rate: attempts === 0 ? null : acc.succeeded / attempts,
    attempts,
    last_success_at: row?.last_success != null ? iso(Number(row.last_success)) : null,
    last_failure_at: row?.last_failure != null ? iso(Number(row.last_failure)) : null,
    streak: streak === 0 ? null : { kind: streak > 0 ? 'succeeding' : 'failing', attempts: Math.abs(streak) },
  };
}

/** GET /admin/api/webhooks/:id/stats?range=24h|7d|30d */
export async function webhookStats(core: Core, webhookId: string, range: unknown): Promise<WebhookStatsView> {
  const plan = planRange(range, core.clock.now());
  const webhook = await core.db.selectFrom('webhooks').select('id').where('id', '=', webhookId).executeTakeFirst();
  if (!webhook) throw notFound(`Webhook ${webhookId}`);
  const [rows, [healthRow]] = await Promise.all([
    rangeSums(core, [webhookId], plan, plan.range === '24h' ? 'm' : 'h').execute(),
    healthRows(core, [webhookId]).execute(),
  ]);
  const steps = Array.from({ length: stepCount(plan) }, emptyAcc);
  const total = emptyAcc();
  for (const row of rows) {
    const i = Number(row.i);
    if (i < 0 || i >= steps.length) continue;
    add(steps[i], row);
    add(total, row);
  }
  return {
    webhook_id: webhookId, range: plan.range, step_s: plan.stepMs / 1000, from: iso(plan.from), to: iso(plan.to),
    points: steps.map((acc, i) => ({ start: iso(plan.from + i * plan.stepMs), ...point(acc) })),
    totals: point(total),
    health: health(webhookId, total, healthRow),
  };
}

/** GET /admin/api/webhooks/health?range=…: every (not deleted) webhook's health summary, for the list. */
export async function webhooksHealth(core: Core, range: unknown): Promise<{ range: string; items: WebhookHealth[] }> {
  const plan = planRange(range, core.clock.now());
  const ids = (await core.db.selectFrom('webhooks').select('id').where('deleted_at', 'is', null).execute())
    .map((w) => w.id);
  if (ids.length === 0) return { range: plan.range, items: [] };
  // Hour rows, whole hours of the range: the list's summary need not be exact to the minute.
  const [rows, healthRowsRead] = await Promise.all([
    rangeSums(core, ids, plan, 'h', false).execute(), healthRows(core, ids).execute(),
  ]);
  const accs = new Map(ids.map((id) => [id, emptyAcc()]));
  for (const row of rows) add(accs.get(row.webhook_id)!, row);
  const byId = new Map(healthRowsRead.map((r) => [r.webhook_id, r]));
  return { range: plan.range, items: ids.map((id) => health(id, accs.get(id)!, byId.get(id))) };
}

/**
 * Drops minute rows older than two days (the 24 h chart's), hour rows older than the delivery log's cutoff, and API
 * keys' hour rows older than the 30-day chart. Health rows stay (a quiet webhook keeps its last success).
 */
export async function pruneStats(core: Core, cutoffMs: number): Promise<number> {
  const now = core.clock.now();
  const minutes = await core.db.deleteFrom('webhook_stats').where('unit', '=', 'm')
    .where('bucket', '<', now - 2 * DAY_MS).executeTakeFirst();
  const hours = await core.db.deleteFrom('webhook_stats').where('unit', '=', 'h')
    .where('bucket', '<', cutoffMs).executeTakeFirst();
  const keys = await core.db.deleteFrom('api_usage_hours').where('hour', '<', now - 31 * DAY_MS).executeTakeFirst();
  return Number(minutes.numDeletedRows) + Number(hours.numDeletedRows) + Number(keys.numDeletedRows);
}

const DAY_MS = 86_400_000;
