// The delivery engine's Prometheus metrics (docs/operations.md "Metrics"). What happens per delivery is counted in
// memory (no SQL on the hot path); the queue's depth and the age of its oldest due delivery are read when scraped,
// with one statement on the deliveries_due index (status, next_attempt_at): the depth counts at most
// QUEUE_DEPTH_CAP entries (a backlog of millions would otherwise be counted in full at every scrape) and the oldest
// is the index's first pending entry.
import type { Kysely } from 'kysely';
import type { Core } from '../../core.js';
import type { Database } from '../../store/tables.js';
import { metricsOf } from '../../metrics.js';
import type { Claimed } from './queue/index.js';
import type { Outcome } from './schedule.js';

/** Seconds: a nearby receiver answers in milliseconds; the timeout (WAYPOST_DELIVERY_TIMEOUT_MS) is 30 s by default. */
const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface DeliveryMetrics {
  /** An attempt's (or a cancellation's) outcome, by webhook. */
  outcome(kind: Outcome['kind'], webhookId: string): void;
  /** An attempt's send, request to answer (or error). */
  attempt(durationMs: number): void;
  /** A worker's claim: how many it leased, and how many of those it took over from an expired lease. */
  claimed(worker: string, claimed: readonly Claimed[]): void;
}

const perCore = new WeakMap<Core, DeliveryMetrics>();

/** The delivery metrics of this Core, registered on first use (with the scrape-time queue gauges). */
export function deliveryMetrics(core: Core): DeliveryMetrics {
  let m = perCore.get(core);
  if (!m) perCore.set(core, (m = register(core)));
  return m;
}

const OUTCOMES = ['succeeded', 'retry', 'exhausted', 'disabled', 'cancelled'] as const satisfies Outcome['kind'][];
const OUTCOME_INDEX = Object.fromEntries(OUTCOMES.map((kind, i) => [kind, i])) as Record<Outcome['kind'], number>;

function register(core: Core): DeliveryMetrics {
  const metrics = metricsOf(core);
  // Counted in plain arrays per webhook and handed to prom-client at the scrape: a labelled inc() per delivery cost
  // about ten times a map lookup (bench/results/delivery-metrics.json).
  const byWebhook = new Map<string, number[]>();
  metrics.counter('waypost_deliveries_total',
    'Delivery attempts by outcome (succeeded, retry, exhausted, disabled, cancelled) and webhook id',
    ['outcome', 'webhook'], function collect() {
      this.reset();
      for (const [webhook, counts] of byWebhook) {
        for (let i = 0; i < OUTCOMES.length; i++) {
          if (counts[i] > 0) this.inc({ outcome: OUTCOMES[i], webhook }, counts[i]);
        }
      }
    });
  const seconds = metrics.plainHistogram('waypost_delivery_attempt_duration_seconds',
    'Time from sending a delivery to its answer (or error)', ATTEMPT_BUCKETS);
  const claims = metrics.counter('waypost_delivery_claims_total', 'Deliveries claimed (leased) by this worker',
    ['worker']);
  const expiries = metrics.counter('waypost_delivery_lease_expiries_total',
    'Deliveries this worker claimed whose lease had run out (a crashed or stalled worker\'s)', ['worker']);
  registerQueueGauges(core);
  return {
    outcome(kind, webhook) {
      let counts = byWebhook.get(webhook);
      if (!counts) byWebhook.set(webhook, (counts = OUTCOMES.map(() => 0)));
      counts[OUTCOME_INDEX[kind]]++;
    },
    attempt: (durationMs) => seconds.observe(durationMs / 1000),
    claimed(worker, claimed) {
      // Zero too: the series exists from the worker's first claim, so rate() and the dashboard see every worker.
      claims.inc({ worker }, claimed.length);
      let takenOver = 0;
      for (const c of claimed) if (c.leaseTakenOver) takenOver++;
      expiries.inc({ worker }, takenOver);
    },
  };
}

/** A scrape does not wait longer than this for the queue's figures (the database may be down or unreachable). */
const QUEUE_READ_MS = 2_000;

/** Queue depth and oldest due age, read at each scrape (shared by all processes: the dashboard takes the max). */
function registerQueueGauges(core: Core): void {
  const metrics = metricsOf(core);
  let reading: Promise<QueueFigures | null> | null = null;
  // One query serves both gauges of a scrape (each gauge's collect asks; the second gets the first's answer).
  const read = () => (reading ??= queueFigures(core).finally(() => setImmediate(() => { reading = null; })));
  // Without an answer the gauges keep their last values: the scrape still shows waypost_database_up = 0.
  const depthHelp = 'Pending deliveries: due now, in flight or waiting for a retry '
    + `(counted up to ${QUEUE_DEPTH_CAP}: the gauge stays there however many more wait)`;
  metrics.gauge('waypost_delivery_queue_depth', depthHelp, [], async function collect() {
    const figures = await read();
    if (figures) this.set(figures.depth);
  });
  metrics.gauge('waypost_delivery_oldest_due_age_seconds',
    'How long the oldest due delivery has been due (0 when none is)', [], async function collect() {
      const figures = await read();
      if (!figures) return;
      this.set(figures.oldestDueAt === null ? 0 : Math.max(0, core.clock.now() - figures.oldestDueAt) / 1000);
    });
}

interface QueueFigures { depth: number; oldestDueAt: number | null }

/** The queue-depth gauge counts no further than this: enough to page on, bounded at a scrape however deep the
 *  backlog (docs/operations.md "Metrics"). */
export const QUEUE_DEPTH_CAP = 100_000;

/** Both figures in one statement, each a bounded read of deliveries_due: the depth counts the first `cap` pending
 *  entries, the oldest due time is the first entry in (status, next_attempt_at) order. */
export function queueStatement(db: Kysely<Database>, cap = QUEUE_DEPTH_CAP) {
  const pending = () => db.selectFrom('deliveries').where('status', '=', 'pending');
  return db.selectNoFrom((eb) => [
    eb.selectFrom(pending().select('next_attempt_at').limit(cap).as('p'))
      .select(eb.fn.countAll().as('n')).as('depth'),
    pending().select('next_attempt_at').where('next_attempt_at', 'is not', null)
      .orderBy('next_attempt_at').limit(1).as('oldest'),
  ]);
}

/** Pending deliveries (up to the cap) and the earliest time one is due; null when the database does not answer in
 *  time. */
export async function queueFigures(core: Core, cap = QUEUE_DEPTH_CAP): Promise<QueueFigures | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), QUEUE_READ_MS); });
  const query = queueStatement(core.db, cap)
    .executeTakeFirstOrThrow()
    .then((r) => ({ depth: Number(r.depth), oldestDueAt: r.oldest === null ? null : Number(r.oldest) }))
    .catch(() => null);
  try {
    return await Promise.race([query, late]);
  } finally {
    clearTimeout(timer);
  }
}
