// The PostgreSQL queue: claims take FOR UPDATE SKIP LOCKED (concurrent workers pass over each other's rows), a
// failure locks its row before reading it, and workers in other processes are woken by LISTEN/NOTIFY.
// The worker's two hot writes are one statement each, run as named prepared statements (parsed and planned once per
// connection, on store.pg.engine(), whose sessions allow only index scans): a claim leases the rows and returns them
// with their webhooks and events; a batch of successes inserts its attempt rows from one JSON array and updates its
// deliveries. Before, a claim was a transaction of four round trips plus two reads, a batch four round trips and a
// statement of 13 parameters per row compiled by Kysely each time (docs/PERFORMANCE.md).
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { Core } from '../../../core.js';
import { slot, withValues } from '../../../store/prepared.js';
import type { Database } from '../../../store/tables.js';
import type { DeliveryRow, EventRow, WebhookRow } from '../../tables.js';
import { addToStored, statRows } from '../../stats/counts.js';
import { BaseQueue, claimStatement, claimedFrom, joinLoaded, succeededValues, successEntries } from './base.js';
import { DELIVERY_CHANNEL, listenForDeliveries } from './listen.js';
import type { ClaimRequest, Claimed, SuccessItem, Wakeups } from './types.js';

type Loaded = { k: 0; r: DeliveryRow } | { k: 1; r: WebhookRow } | { k: 2; r: EventRow };

export class PostgresQueue extends BaseQueue {
  protected readonly lockRows = true;
  protected readonly greatest = 'greatest';
  private readonly claimQuery: (r: ClaimRequest) => CompiledQuery;
  private readonly successQuery: (values: Record<string, unknown>) => CompiledQuery;
  private readonly pools: NonNullable<Core['store']['pg']>;

  constructor(core: Core) {
    super(core);
    this.pools = core.store.pg!;
    this.claimQuery = claimStatement(core.db, { postgres: true });
    this.successQuery = withValues(successStatement(core.db).compile());
  }

  async claim(request: ClaimRequest): Promise<Claimed[]> {
    if (request.limit <= 0) return [];
    const statement = this.claimQuery(request);
    // The right plan is always the ordered scan of deliveries_due that stops after `limit` rows. With statistics
    // older than a backlog (a burst after a quiet spell, before autovacuum analysed the table) the planner picks a
    // bitmap scan of the whole backlog plus a sort, and a generic plan made while the table was nearly empty reads all
    // of it (docs/PERFORMANCE.md); the engine pool's session rules out sorts and sequential scans, which leaves the
    // ordered scan and lookups by primary key. The claimed rows come back with their webhooks and events, as JSON.
    const text = `WITH claimed AS (${statement.sql}) SELECT 0 AS k, row_to_json(claimed) AS r FROM claimed
      UNION ALL SELECT 1, row_to_json(w) FROM webhooks w
        WHERE w.id = ANY(ARRAY(SELECT DISTINCT webhook_id FROM claimed))
      UNION ALL SELECT 2, row_to_json(e) FROM events e
        WHERE e.id = ANY(ARRAY(SELECT DISTINCT event_id FROM claimed))`;
    const name = `waypost_claim_${request.skipWebhooks.length}`;
    const values = statement.parameters as unknown[];
    const { rows } = await this.pools.engine().query<Loaded>({ name, text, values });
    const deliveries: DeliveryRow[] = [];
    const webhooks: WebhookRow[] = [];
    const events: EventRow[] = [];
    for (const row of rows) {
      if (row.k === 0) deliveries.push(row.r);
      else if (row.k === 1) webhooks.push(row.r);
      else events.push(row.r);
    }
    return claimedFrom(deliveries, request, joinLoaded(deliveries, webhooks, events));
  }

  /** One statement (atomic on its own): the attempt rows from one JSON array, and their deliveries' update. */
  override async recordSuccesses(items: readonly SuccessItem[]): Promise<void> {
    if (items.length === 0) return;
    // An ordered delivery's success also takes its chain's lock and makes the next one due (order.ts): a transaction.
    if (items.some((i) => i.chain)) return super.recordSuccesses(items);
    // JSON.stringify escapes the bodies natively; pg's array literals escaped each string in JavaScript.
    const attempts = JSON.stringify(items.map((i) => i.attempt));
    const counts = JSON.stringify(statRows(successEntries(items)));
    const { sql: text, parameters } = this.successQuery({ now: items[items.length - 1].now, attempts, counts });
    await this.pools.engine().query({ name: 'waypost_successes', text, values: parameters as unknown[] });
  }

  override wakeups(onWake: () => void): Wakeups {
    const local = super.wakeups(onWake);
    const listener = listenForDeliveries(this.core, onWake);
    return {
      async close() {
        await local.close();
        await listener.close();
      },
    };
  }
}

/**
 * `WITH written AS (INSERT … SELECT FROM json_populate_recordset(attempts) RETURNING delivery_id) UPDATE deliveries
 * … WHERE id = ANY(ARRAY(the written delivery ids))`: the attempt rows' JSON keys are the table's column names.
 * The `counted` CTE adds the batch's chart counters (webhooks/stats/counts.ts) in the same statement.
 */
export function successStatement(db: Kysely<Database>) {
  return db
    .with('counted', (w) => w.insertInto('webhook_stats')
      .expression(sql`SELECT * FROM json_populate_recordset(NULL::webhook_stats, ${slot('counts')}::json)`)
      .onConflict(addToStored))
    .with('written', (w) => w.insertInto('delivery_attempts')
      .expression(sql`SELECT * FROM json_populate_recordset(NULL::delivery_attempts, ${slot('attempts')}::json)`)
      .returning('delivery_id'))
    .updateTable('deliveries')
    .set(succeededValues(slot('now')))
    .where(sql<boolean>`id = ANY(ARRAY(SELECT delivery_id FROM written))`);
}

/** In the transaction that queued deliveries: NOTIFY, which PostgreSQL delivers to other processes at commit. */
export async function notifyQueued(db: Kysely<Database>): Promise<void> {
  await sql`SELECT pg_notify(${DELIVERY_CHANNEL}, '')`.execute(db);
}
