// Bulk-load mode for large imports. Keeping a dozen list indexes, the trigram search index and SQLite's
// change-counter triggers up to date row by row made most of an import's time (and got slower as the tables grew);
// building them once over the loaded rows is a sort per index. So a large import drops them first and rebuilds
// them at the end. What it dropped is recorded in `bulk_load_pending` in the same transaction that drops it: an
// import that stops half-way is finished by the next import (of any file), and `waypost serve` refuses to start
// while something is pending (lists would scan and search would miss records). Records, trip links and the
// maintained totals are written as usual, so every row is right at every commit; only the indexes wait.
import { sql, type Kysely } from 'kysely';
import type { Core } from '../core.js';
import { searchTextOf } from '../records/rows.js';
import { dialectOf, SEARCHABLE, type Searchable } from '../store/dialect.js';

type Db = Kysely<any>;

/** The tables an import writes; their secondary indexes and triggers wait during a bulk load. */
const TABLES = ['trips', 'customers', 'bookings', 'booking_trips', 'payments', 'enquiries', 'reviews'];
/** An index the import itself reads (embedded customers found by e-mail), kept. */
const KEPT = ['customers_email'];
/** Below this size an import writes its indexes as it goes (a rebuild would cost more than it saves). */
const BULK_MIN_BYTES = 8 * 1024 * 1024;
/** FTS5's pending-terms limit while a search index is rebuilt (its default is 1 MB). */
const FTS_HASH_BYTES = 8 * 1024 * 1024;
/** A rough import line (the scale file's average is about 480 bytes), to compare a file with the tables. */
const LINE_BYTES = 500;

interface Pending {
  name: string;
  kind: 'index' | 'trigger' | 'search';
  definition: string;
}

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

/** What a bulk load drops: the record tables' secondary indexes and triggers, as their CREATE statements. */
async function droppable(db: Db): Promise<Pending[]> {
  if (dialectOf(db) === 'sqlite') {
    const { rows } = await sql<{ name: string; kind: 'index' | 'trigger'; definition: string }>`
      SELECT name, type AS kind, sql AS definition FROM sqlite_master
      WHERE type IN ('index', 'trigger') AND sql IS NOT NULL AND tbl_name IN (${sql.join(TABLES)})
        AND name NOT IN (${sql.join(KEPT)})`.execute(db);
    return [...rows, ...SEARCHABLE.map((t) => ({ name: `${t}_fts`, kind: 'search' as const, definition: t }))];
  }
  const { rows } = await sql<{ name: string; definition: string }>`
    SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
    WHERE t.relnamespace = current_schema()::regnamespace AND t.relname IN (${sql.join(TABLES)})
      AND NOT i.indisprimary AND NOT i.indisunique AND c.relname NOT IN (${sql.join(KEPT)})`.execute(db);
  return rows.map((r) => ({ ...r, kind: 'index' as const }));
}

/** Records and drops the indexes and triggers, in one transaction. Nothing to do when a bulk load is pending. */
export async function beginBulkLoad(core: Core): Promise<void> {
  await core.db.transaction().execute(async (trx) => {
    const db = trx as unknown as Db;
    if ((await pendingBulkLoad(db)).length > 0) return;
    const drop = await droppable(db);
    if (drop.length === 0) return;
    await db.insertInto('bulk_load_pending').values(drop).execute();
    for (const p of drop) {
      if (p.kind === 'index') await sql`DROP INDEX ${sql.id(p.name)}`.execute(db);
      if (p.kind === 'trigger') await sql`DROP TRIGGER ${sql.id(p.name)}`.execute(db);
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
  const sqlite = core.store.sqlite;
  if (sqlite && pending.some((p) => p.kind === 'search')) {
    // The search text comes from the stored record, as the write path computes it (SQLite keeps no copy of it).
    sqlite.function('waypost_search_text', { deterministic: true }, (resource: unknown, data: unknown) =>
      searchTextOf(resource as Searchable, JSON.parse(String(data))));
  }
  const triggers = pending.filter((p) => p.kind === 'trigger');
  let done = 0;
  for (const p of pending.filter((q) => q.kind !== 'trigger')) {
    onStep?.(p.name, done++, pending.length);
    await core.db.transaction().execute(async (trx) => {
      if (p.kind === 'index') {
        // PostgreSQL sorts in maintenance_work_mem: its default (64 MB) spills a million rows to disk.
        if (dialectOf(trx) === 'postgres') await sql`SET LOCAL maintenance_work_mem = '256MB'`.execute(trx);
        await sql.raw(p.definition).execute(trx);
      } else {
        const fts = sql.table(p.name);
        await sql`INSERT INTO ${fts} (${fts}) VALUES ('delete-all')`.execute(trx);
        // FTS5 writes a segment each time its pending terms pass 'hashsize' (1 MB): at 8 MB, fewer segments to merge
        // (about a quarter faster). Back to the default before the commit, which is what reads it.
        await sql`INSERT INTO ${fts} (${fts}, rank) VALUES ('hashsize', ${sql.lit(FTS_HASH_BYTES)})`.execute(trx);
        await sql`INSERT INTO ${fts} (rowid, search_text)
          SELECT id, waypost_search_text(${p.definition}, data) FROM ${sql.table(p.definition)}`.execute(trx);
        await sql`INSERT INTO ${fts} (${fts}, rank) VALUES ('hashsize', ${sql.lit(1024 * 1024)})`.execute(trx);
      }
      await (trx as unknown as Db).deleteFrom('bulk_load_pending').where('name', '=', p.name).execute();
    });
  }
  if (triggers.length === 0) return;
  onStep?.('triggers', done, pending.length);
  await core.db.transaction().execute(async (trx) => {
    for (const t of triggers) await sql.raw(t.definition).execute(trx);
    await sql`UPDATE change_counters SET generation = generation + 1`.execute(trx);
    await (trx as unknown as Db).deleteFrom('bulk_load_pending').where('kind', '=', 'trigger').execute();
  });
}
