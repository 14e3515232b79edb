// The PostgreSQL queue: claims take FOR UPDATE SKIP LOCKED (concurrent workers pass over each other's rows), a
// failure locks its row before reading it, and workers in other processes are woken by LISTEN/NOTIFY.
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { Core } from '../../../core.js';
import type { Database } from '../../../store/tables.js';
import type { DeliveryRow } from '../../tables.js';
import { BaseQueue, claimStatement, claimedFrom } from './base.js';
import { DELIVERY_CHANNEL, listenForDeliveries } from './listen.js';
import type { ClaimRequest, Claimed, Wakeups } from './types.js';

export class PostgresQueue extends BaseQueue {
  protected readonly lockRows = true;
  private readonly claimQuery: (r: ClaimRequest) => CompiledQuery;

  constructor(core: Core) {
    super(core);
    this.claimQuery = claimStatement(core.db, true);
  }

  async claim(request: ClaimRequest): Promise<Claimed[]> {
    if (request.limit <= 0) return [];
    const statement = this.claimQuery(request);
    // The right plan is always the ordered scan of deliveries_due that stops after `limit` rows. With statistics
    // older than a backlog (a burst after a quiet spell, before autovacuum analysed the table) the planner picks a
    // bitmap scan of the whole backlog plus a sort (docs/PERFORMANCE.md); ruling out the sort leaves the ordered scan.
    const rows = await this.core.db.transaction().execute(async (trx) => {
      await sql`set local enable_sort = off`.execute(trx);
      return (await trx.executeQuery<DeliveryRow>(statement)).rows;
    });
    const loaded = await this.withWebhooksAndEvents(rows);
    return claimedFrom(rows, request, loaded);
  }

  override wakeups(onWake: () => void): Wakeups {
    const local = super.wakeups(onWake);
    const listener = listenForDeliveries(this.core.store.url, this.core.log, onWake);
    return {
      async close() {
        await local.close();
        await listener.close();
      },
    };
  }
}

/** In the transaction that queued deliveries: NOTIFY, which PostgreSQL delivers to other processes at commit. */
export async function notifyQueued(db: Kysely<Database>): Promise<void> {
  await sql`SELECT pg_notify(${DELIVERY_CHANNEL}, '')`.execute(db);
}
