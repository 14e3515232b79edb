// Claimers: take up to `limit` due deliveries and lease them to one worker, atomically, so two workers never
// claim the same delivery while its lease runs. A delivery is due when it is pending, its next attempt time has
// come and it is not leased (or its lease expired: the worker that held it crashed). Two backends, one interface
// (like fastify-rate-limit's LocalStore / RedisStore): SQLite serialises writers, so one UPDATE … RETURNING
// suffices; PostgreSQL adds FOR UPDATE SKIP LOCKED so concurrent workers pass over each other's rows.
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { Core } from '../../core.js';
import type { Database } from '../../store/tables.js';
import { readRows } from '../../store/read.js';
import { listValues, slot, slots, step, withValues } from '../../store/prepared.js';
import { joinLoaded, withWebhooksAndEvents, type LoadedDelivery } from '../deliver.js';
import type { DeliveryRow, EventRow, WebhookRow } from '../tables.js';

export interface Claimed {
  id: string;
  webhookId: string;
  leaseUntil: number;
  /** The delivery as the claim left it, with its webhook and event, read in the claim (no second query). */
  loaded: LoadedDelivery;
}

export interface Claimer {
  /** `skipWebhooks`: webhooks this worker already holds enough of (so one slow webhook cannot starve the others). */
  claim(owner: string, limit: number, now: number, leaseMs: number, skipWebhooks?: string[]): Promise<Claimed[]>;
}

/**
 * The claim as one statement (prepared once per shape on SQLite, see src/store/read.ts), compiled once per number
 * of skipped webhooks: a worker claims many times a second.
 */
function claimQuery(core: Core, skipLocked: boolean) {
  const { db } = core;
  const compiled = new Map<number, (values: Record<string, unknown>) => CompiledQuery>();
  const compile = (skipCount: number) => withValues(db.updateTable('deliveries')
    .set({ lease_owner: slot('owner'), lease_until: slot('leaseUntil') as unknown as number })
    .where('id', 'in', (eb) => {
      const now = slot('now') as unknown as number;
      const due = eb.selectFrom('deliveries').select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where((w) => w.or([w('lease_until', 'is', null), w('lease_until', '<=', now)]))
        .$if(skipCount > 0, (q) => q.where('webhook_id', 'not in', slots('skip', skipCount)))
        .orderBy('next_attempt_at') // served by the deliveries_due index: no sort of the whole backlog
        .limit(slot('limit') as unknown as number);
      return skipLocked ? due.forUpdate().skipLocked() : due;
    })
    .returningAll()
    .compile());
  // On the SQLite writer thread the claimed deliveries' webhooks and events are read in the claim's transaction.
  const byJsonList = (table: 'webhooks' | 'events') => step(db.selectFrom(table).selectAll()
    .where(sql<boolean>`id in (select value from json_each(${slot('ids')}))`).compile(), true);
  const webhooksOf = { ...byJsonList('webhooks'), parameters: [], listFrom: { step: 0, column: 'webhook_id' } };
  const eventsOf = { ...byJsonList('events'), parameters: [], listFrom: { step: 0, column: 'event_id' } };
  return async (owner: string, limit: number, now: number, leaseMs: number, skipWebhooks: string[] = []): Promise<Claimed[]> => {
    if (limit <= 0) return [];
    const leaseUntil = now + leaseMs;
    let query = compiled.get(skipWebhooks.length);
    if (!query) compiled.set(skipWebhooks.length, query = compile(skipWebhooks.length));
    const statement = query(listValues('skip', skipWebhooks, { owner, leaseUntil, now, limit }));
    const { writer } = core.store;
    let rows: DeliveryRow[];
    let loaded: Map<string, LoadedDelivery>;
    if (writer) {
      const [claimed, webhooks, events] = await writer.transaction([step(statement, true), webhooksOf, eventsOf]);
      rows = claimed as DeliveryRow[];
      loaded = joinLoaded(rows, webhooks as WebhookRow[], events as EventRow[]);
    } else {
      rows = skipLocked ? await claimOnPostgres(core, statement) : await readRows<DeliveryRow>(core, statement);
      loaded = await withWebhooksAndEvents(core, rows);
    }
    return rows.map((r) => ({ id: r.id, webhookId: r.webhook_id, leaseUntil, loaded: loaded.get(r.id)! }));
  };
}

/**
 * PostgreSQL: the right plan is always the ordered scan of deliveries_due that stops after `limit` rows. With
 * statistics older than a backlog (a burst after a quiet spell, before autovacuum has analysed the table) the planner
 * expects a few pending rows and picks a bitmap scan of the whole backlog plus a sort: 40 ms a claim over 100,000
 * pending deliveries instead of 6 ms (EXPLAIN ANALYZE). Ruling out the sort for this statement leaves the ordered scan.
 */
function claimOnPostgres(core: Core, statement: CompiledQuery): Promise<DeliveryRow[]> {
  return core.db.transaction().execute(async (trx) => {
    await sql`set local enable_sort = off`.execute(trx);
    return (await trx.executeQuery<DeliveryRow>(statement)).rows;
  });
}

export function sqliteClaimer(core: Core): Claimer {
  return { claim: claimQuery(core, false) };
}

export function postgresClaimer(core: Core): Claimer {
  return { claim: claimQuery(core, true) };
}

export function claimerFor(core: Core): Claimer {
  return core.store.dialect === 'postgres' ? postgresClaimer(core) : sqliteClaimer(core);
}

/** Extends a lease still held by `owner`; false when it was lost (expired and taken by another worker). */
export async function renewLease(db: Kysely<Database>, id: string, owner: string, leaseUntil: number): Promise<boolean> {
  const res = await db.updateTable('deliveries').set({ lease_until: leaseUntil })
    .where('id', '=', id).where('lease_owner', '=', owner).where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
