// What both backends share: the statements, built by Kysely (typed) and compiled once where they run per delivery.
// sqlite.ts and postgres.ts extend it with their claim, their locking and their wake-ups.
import { sql, type CompiledQuery, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Core } from '../../../core.js';
import type { Database } from '../../../store/tables.js';
import { readRows } from '../../../store/read.js';
import { listValues, slot, slots, withValues } from '../../../store/prepared.js';
import { disableWebhook } from '../../disable.js';
import { statRows, upsertStats, type StatEntry } from '../../stats/counts.js';
import { lockChains, releaseNext, type Chain } from '../order.js';
import type { DeliveryRow, EventRow, WebhookRow } from '../../tables.js';
import type {
  ClaimRequest, Claimed, DeliveryQueue, FailureRecord, FailureWritten, LoadedDelivery, SuccessItem, Wakeups,
} from './types.js';

type Db = Kysely<Database>;

export abstract class BaseQueue implements DeliveryQueue {
  private readonly byIdQueries = new Map<string, (values: Record<string, unknown>) => CompiledQuery>();

  constructor(protected readonly core: Core) {}

  abstract claim(request: ClaimRequest): Promise<Claimed[]>;

  /** Whether a failure locks its delivery row first (PostgreSQL; SQLite's transactions are serial already). */
  protected abstract readonly lockRows: boolean;

  /** The SQL function of the larger of two values (SQLite's two-argument max, PostgreSQL's greatest). */
  protected abstract readonly greatest: 'max' | 'greatest';

  async open(): Promise<void> {}

  async close(): Promise<void> {}

  async load(ids: readonly string[]): Promise<Map<string, LoadedDelivery>> {
    if (ids.length === 0) return new Map();
    const rows = await readRows<DeliveryRow>(this.core, this.byIds('deliveries', ids));
    return this.withWebhooksAndEvents(rows);
  }

  /** Adds their webhooks and events to delivery rows already read (a claim returns them): two queries. */
  protected async withWebhooksAndEvents(deliveries: DeliveryRow[]): Promise<Map<string, LoadedDelivery>> {
    if (deliveries.length === 0) return new Map();
    const webhookIds = [...new Set(deliveries.map((d) => d.webhook_id))];
    const eventIds = [...new Set(deliveries.map((d) => d.event_id))];
    const webhooks = await readRows<WebhookRow>(this.core, this.byIds('webhooks', webhookIds));
    const events = await readRows<EventRow>(this.core, this.byIds('events', eventIds));
    return joinLoaded(deliveries, webhooks, events);
  }

  /** `select * from <table> where id in (…)`, compiled once per table and list length (run per claim). */
  private byIds(table: 'deliveries' | 'webhooks' | 'events', ids: readonly string[]): CompiledQuery {
    const key = `${table}:${ids.length}`;
    let query = this.byIdQueries.get(key);
    if (!query) {
      const select = this.core.db.selectFrom(table).selectAll().where('id', 'in', slots('id', ids.length));
      query = withValues(select.compile());
      this.byIdQueries.set(key, query);
    }
    return query(listValues('id', ids));
  }

  async take(id: string, owner: string, now: number, leaseUntil: number): Promise<'taken' | 'held' | 'final'> {
    const res = await this.core.db.updateTable('deliveries')
      .set({ lease_owner: owner, lease_until: leaseUntil })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) > 0) return 'taken';
    const row = await this.core.db.selectFrom('deliveries').select('status').where('id', '=', id).executeTakeFirst();
    if (!row) throw new Error(`delivery ${id} does not exist`);
    return row.status === 'pending' ? 'held' : 'final';
  }

  async renew(id: string, owner: string, leaseUntil: number): Promise<boolean> {
    const res = await this.core.db.updateTable('deliveries').set({ lease_until: leaseUntil })
      .where('id', '=', id).where('lease_owner', '=', owner).where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async release(id: string, owner: string): Promise<void> {
    await this.core.db.updateTable('deliveries').set({ lease_owner: null, lease_until: null })
      .where('id', '=', id).where('lease_owner', '=', owner).execute();
  }

  async reserveSlots(webhookId: string, count: number, intervalMs: number, now: number): Promise<number> {
    const { rows } = await this.core.db.executeQuery(this.reserveStatement(webhookId, count, intervalMs, now));
    return Number(rows[0].next_slot_ms) - count * intervalMs;
  }

  /** One upsert: the slots are the caller's once it commits, whichever process asks next gets the ones after. */
  protected reserveStatement(webhookId: string, count: number, intervalMs: number, now: number) {
    const span = count * intervalMs;
    return sql<{ next_slot_ms: number }>`INSERT INTO webhook_throttle (webhook_id, next_slot_ms)
      VALUES (${webhookId}, ${now + span})
      ON CONFLICT (webhook_id) DO UPDATE SET next_slot_ms =
        ${sql.raw(this.greatest)}(webhook_throttle.next_slot_ms, CAST(${now} AS double precision))
        + CAST(${span} AS double precision)
      RETURNING next_slot_ms`.compile(this.core.db);
  }

  async cancel(id: string, reason: string, now: string, chain?: Chain): Promise<void> {
    const cancel = (db: Db) => db.updateTable('deliveries')
      .set({
        status: 'cancelled', cancel_reason: reason, next_attempt_at: null, lease_owner: null, lease_until: null,
        updated_at: now, completed_at: now,
      })
      .where('id', '=', id).where('status', '=', 'pending')
      .execute();
    if (!chain) {
      await cancel(this.core.db);
      return;
    }
    await this.core.db.transaction().execute(async (trx) => {
      await lockChains(trx, [chain]);
      await cancel(trx);
      await releaseNext(trx, [id], Date.parse(now));
    });
  }

  /** A success counts even if the delivery was cancelled while in flight: the receiver has it. */
  async recordSuccesses(items: readonly SuccessItem[]): Promise<void> {
    if (items.length === 0) return;
    const now = items[items.length - 1].now;
    const chains = items.flatMap((i) => (i.chain ? [i.chain] : []));
    await this.core.db.transaction().execute(async (trx) => {
      if (chains.length > 0) await lockChains(trx, chains); // before any row lock (order.ts)
      await trx.insertInto('delivery_attempts').values(items.map((i) => i.attempt)).execute();
      await markSucceeded(trx, now, items.map((i) => i.attempt.delivery_id)).execute();
      const ordered = items.filter((i) => i.chain).map((i) => i.attempt.delivery_id);
      await releaseNext(trx, ordered, Date.parse(now));
      // The counters last: no transaction waits for another delivery's row while it holds a counter row, so two
      // writers cannot deadlock on them (PostgreSQL's success statement runs its unreferenced `counted` CTE last too).
      await upsertStats(trx, statRows(successEntries(items))).execute();
    });
  }

  async attemptsRecorded(items: readonly SuccessItem[]): Promise<boolean> {
    const ids = items.map((i) => i.attempt.id);
    const row = await this.core.db.selectFrom('delivery_attempts').select((eb) => eb.fn.countAll().as('n'))
      .where('id', 'in', ids).executeTakeFirstOrThrow();
    return Number(row.n) === ids.length;
  }

  async recordFailure(f: FailureRecord): Promise<FailureWritten> {
    const id = f.attempt.delivery_id;
    const givenUp = f.status === 'failed' ? f.chain : undefined;
    return this.core.db.transaction().execute(async (trx) => {
      if (givenUp) await lockChains(trx, [givenUp]); // before the row's lock (order.ts)
      const read = trx.selectFrom('deliveries').selectAll().where('id', '=', id);
      const current = await (this.lockRows ? read.forUpdate() : read).executeTakeFirst();
      await trx.insertInto('delivery_attempts').values(f.attempt).execute();
      // Cancelled while in flight (webhook disabled): the failure does not revive it.
      const status = current?.status === 'cancelled' ? 'cancelled' : f.status;
      const finished = status !== 'pending';
      await trx.updateTable('deliveries').set({
        status,
        attempts: f.attempt.attempt,
        next_attempt_at: finished ? null : f.nextAttemptAt,
        lease_owner: null,
        lease_until: null,
        last_status: f.attempt.response_status,
        last_error: f.attempt.error,
        updated_at: f.now,
        completed_at: finished ? (current?.completed_at ?? f.now) : null,
      }).where('id', '=', id).execute();
      const entry: StatEntry = {
        webhookId: f.webhookId, atMs: Date.parse(f.now), durationMs: f.attempt.duration_ms,
        outcome: status === 'pending' ? 'retried' : 'failed',
      };
      if (status === 'failed' && f.disable) await disableWebhook(trx, this.core, f.disable.webhookId, f.disable.reason);
      if (givenUp && status === 'failed') await releaseNext(trx, [id], Date.parse(f.now));
      // Last (see recordSuccesses): a disable above locks other deliveries; taking a counter row before them let a
      // disable and another delivery's failure deadlock on PostgreSQL (retries.test.ts, about 1 run in 3).
      await upsertStats(trx, statRows([entry])).execute();
      return { status, cancelReason: current?.cancel_reason ?? null };
    });
  }

  wakeups(onWake: () => void): Wakeups {
    this.core.bus.on('deliveries.queued', onWake);
    return { close: async () => { this.core.bus.off('deliveries.queued', onWake); } };
  }
}

/** The chart counters' view of a batch of successes (src/webhooks/stats/counts.ts). */
export function successEntries(items: readonly SuccessItem[]): StatEntry[] {
  return items.map((i) => ({
    webhookId: i.webhookId, atMs: Date.parse(i.now), durationMs: i.attempt.duration_ms, outcome: 'succeeded',
  }));
}

/** Each delivery with its webhook and event, from rows read together. */
export function joinLoaded(
  deliveries: DeliveryRow[], webhookRows: WebhookRow[], eventRows: EventRow[],
): Map<string, LoadedDelivery> {
  const webhooks = new Map(webhookRows.map((w) => [w.id, w]));
  const events = new Map(eventRows.map((e) => [e.id, e]));
  const out = new Map<string, LoadedDelivery>();
  for (const d of deliveries) {
    out.set(d.id, { delivery: d, webhook: webhooks.get(d.webhook_id), event: events.get(d.event_id) });
  }
  return out;
}

/** A success's delivery update. The attempt row has its number; the delivery made one fewer (the lease held). */
export function markSucceeded(db: Db, now: string, ids: string[]) {
  return db.updateTable('deliveries').set(succeededValues(now)).where('id', 'in', ids);
}

/** What a success sets on its delivery (both backends' success statements). */
export function succeededValues(now: string) {
  return (eb: ExpressionBuilder<Database, 'deliveries'>) => ({
    status: 'succeeded' as const,
    attempts: eb('attempts', '+', 1),
    next_attempt_at: null,
    lease_owner: null,
    lease_until: null,
    last_status: 200,
    last_error: null,
    cancel_reason: null,
    updated_at: now,
    completed_at: now,
  });
}

/**
 * The claim as one statement, compiled once per number of skipped webhooks (a worker claims many times a second).
 * A delivery is due when it is pending, its time has come and it is not leased (or its lease expired: the worker
 * that held it crashed). PostgreSQL (`postgres: true`): concurrent workers pass over each other's rows (SKIP
 * LOCKED), and the update finds its rows as `id = ANY(ARRAY(…))`: evaluated first, the list is looked up in the
 * primary key, where `id IN (…)` was planned as a hash join over a scan of the whole table (every claim read every
 * delivery ever kept). A lease that ran out is taken over 1 ms longer than a fresh one: RETURNING shows only the new
 * values, and this is how the claim tells which rows it took from another worker
 * (waypost_delivery_lease_expiries_total) without another query.
 */
export function claimStatement(db: Db, options: { postgres: boolean }): (r: ClaimRequest) => CompiledQuery {
  const compiled = new Map<number, (values: Record<string, unknown>) => CompiledQuery>();
  const due = (skipCount: number) => {
    const now = slotOf<number>('now');
    const rows = db.selectFrom('deliveries').select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where((w) => w.or([w('lease_until', 'is', null), w('lease_until', '<=', now)]))
      .$if(skipCount > 0, (q) => q.where('webhook_id', 'not in', slots('skip', skipCount)))
      .orderBy('next_attempt_at') // served by the deliveries_due index: no sort of the whole backlog
      .limit(slotOf<number>('limit'));
    return options.postgres ? rows.forUpdate().skipLocked() : rows;
  };
  const compile = (skipCount: number) => withValues(db.updateTable('deliveries')
    .set((eb) => ({
      lease_owner: slotOf<string>('owner'),
      lease_until: eb.case().when('lease_until', 'is', null).then(bigintSlot('leaseUntil'))
        .else(bigintSlot('takenOverUntil')).end(),
    }))
    .where((eb) => (options.postgres
      ? sql<boolean>`${eb.ref('id')} = ANY(ARRAY(${due(skipCount)}))`
      : eb('id', 'in', due(skipCount))))
    .returningAll()
    .compile());
  return ({ owner, limit, now, leaseMs, skipWebhooks }) => {
    let query = compiled.get(skipWebhooks.length);
    if (!query) compiled.set(skipWebhooks.length, query = compile(skipWebhooks.length));
    const leaseUntil = now + leaseMs;
    return query(listValues('skip', skipWebhooks, { owner, leaseUntil, takenOverUntil: leaseUntil + 1, now, limit }));
  };
}

/** The claimed rows as the worker takes them (the claim's own lease time; which leases it took over). */
export function claimedFrom(
  rows: readonly DeliveryRow[], request: ClaimRequest, loaded: Map<string, LoadedDelivery>,
): Claimed[] {
  const leaseUntil = request.now + request.leaseMs;
  return rows.map((r) => ({
    id: r.id, webhookId: r.webhook_id, leaseUntil, leaseTakenOver: Number(r.lease_until) !== leaseUntil,
    loaded: loaded.get(r.id)!,
  }));
}

/** A slot for a time in ms: typed, since PostgreSQL cannot infer a CASE's parameter types (text would not fit). */
function bigintSlot(name: string) {
  return sql<number>`cast(${slot(name)} as bigint)`;
}

/** A prepared-statement slot typed as the column's value (src/store/prepared.ts). */
function slotOf<T>(name: string): T {
  return slot(name) as unknown as T;
}
