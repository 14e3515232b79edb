// Bulk-load mode for large imports. Keeping a dozen list indexes, the trigram search index and SQLite's
// change-counter triggers up to date row by row made most of an import's time (and got slower as the tables grew);
// building them once over the loaded rows is a sort per index. So a large import drops them first and rebuilds
// them at the end. What it dropped is recorded in `bulk_load_pending` in the same transaction that drops it: an
// import that stops half-way is finished by the next import (of any file), and `waypost serve` refuses to start
// while something is pending (lists would scan and search would miss records). Records, trip links and the
// maintained totals are written as usual, so every row is right at every commit; only the indexes wait.
import { sql } from 'kysely';
import type { Core } from '../core.js';
import type { Pending } from '../store/bulk-schema.js';
import type { UntypedDb } from '../store/tables.js';
import { RESOURCES } from '../records/schemas.js';

type Db = UntypedDb;

/** The tables an import writes; their secondary indexes and triggers wait during a bulk load. */
const TABLES = ['trips', 'customers', 'bookings', 'booking_trips', 'payments', 'enquiries', 'reviews'];
/** An index the import itself reads (embedded customers found by e-mail), kept. */
const KEPT = ['customers_email'];
/** Below this size an import writes its indexes as it goes (a rebuild would cost more than it saves). */
const BULK_MIN_BYTES = 8 * 1024 * 1024;
/** A rough import line (the scale file's average is about 480 bytes), to compare a file with the tables. */
const LINE_BYTES = 500;

/** What an earlier bulk load left to rebuild (empty when nothing is pending). */
export async function pendingBulkLoad(db: Db): Promise<Pending[]> {
  return await db.selectFrom('bulk_load_pending').select(['name', 'kind', 'definition']).orderBy('name')
    .execute() as Pending[];
}

/**
 * Whether an import of `bytes` should load in bulk: when the file is large and holds more lines than the record
 * tables hold rows (then rebuilding every index is cheaper than keeping them up to date).
 */
export async function shouldBulkLoad(core: Core, bytes: number): Promise<boolean> {
  if (bytes < BULK_MIN_BYTES) return false;
  const row = await core.db.selectFrom('record_counts').select((eb) => eb.fn.sum<number>('total').as('rows'))
    .where('resource', 'in', ['trips', 'customers', 'bookings', 'payments']).executeTakeFirst();
  return Number(row?.rows ?? 0) * LINE_BYTES < bytes;
}

/** Records and drops the indexes and triggers, in one transaction. Nothing to do when a bulk load is pending. */
export async function beginBulkLoad(core: Core): Promise<void> {
  await core.db.transaction().execute(async (trx) => {
    const db = trx as unknown as Db;
    if ((await pendingBulkLoad(db)).length > 0) return;
    const drop = await core.store.sql.secondaryIndexes(db, TABLES, KEPT);
    if (drop.length === 0) return;
    await db.insertInto('bulk_load_pending').values(drop).execute();
    for (const p of drop) {
      if (p.kind === 'index') await sql`DROP INDEX ${sql.id(p.name)}`.execute(db);
      if (p.kind === 'trigger') await sql`DROP TRIGGER ${sql.id(p.name)}`.execute(db);
      if (p.kind === 'search') await core.store.sql.deferSearchMerges(db, p);
    }
  });
}

/**
 * Rebuilds what is pending, one index per transaction (each removes its own record, so a rebuild that stops
 * half-way goes on from there), then the search index and, last, the triggers with one bump of every change
 * counter (a server on the same SQLite file drops its cached answers). `onStep` hears each step before it runs.
 */
export async function finishBulkLoad(core: Core, onStep?: (step: string, done: number, of: number) => void)
  : Promise<void> {
  const pending = await pendingBulkLoad(core.db);
  const order = { index: 0, search: 1, trigger: 2 } as const;
  pending.sort((a, b) => order[a.kind] - order[b.kind] || a.name.localeCompare(b.name));
  const triggers = pending.filter((p) => p.kind === 'trigger');
  let done = 0;
  const queue = pending.filter((q) => q.kind !== 'trigger');
  const build = async (p: Pending) => {
    onStep?.(p.name, done++, pending.length);
    await core.db.transaction().execute(async (trx) => {
      if (p.kind === 'index') {
        await core.store.sql.beforeIndexBuild(trx);
        await sql.raw(p.definition).execute(trx);
      } else {
        await core.store.sql.finishSearch(trx, p);
      }
      await (trx as unknown as Db).deleteFrom('bulk_load_pending').where('name', '=', p.name).execute();
    });
  };
  // PostgreSQL builds several indexes at once, one per connection (bulk-schema.ts); SQLite one after the other.
  // A failed step stops the others after their current index; the first failure is reported once all have stopped.
  let failure: { err: unknown } | null = null;
  await Promise.all(Array.from({ length: core.store.sql.indexBuilders ?? 1 }, async () => {
    for (let p = queue.shift(); p && !failure; p = queue.shift()) {
      await build(p).catch((err) => { failure ??= { err }; });
    }
  }));
  if (failure) throw (failure as { err: unknown }).err;
  // A server in this process may have cached lists and searches answered without these indexes.
  if (pending.length > 0) core.bus.emit('records.changed', [...RESOURCES]);
  if (triggers.length === 0) return;
  onStep?.('triggers', done, pending.length);
  await core.db.transaction().execute(async (trx) => {
    for (const t of triggers) await sql.raw(t.definition).execute(trx);
    await sql`UPDATE change_counters SET generation = generation + 1`.execute(trx);
    await (trx as unknown as Db).deleteFrom('bulk_load_pending').where('kind', '=', 'trigger').execute();
  });
}
