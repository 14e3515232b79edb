// A large import loads into tables without their secondary indexes, search index and change-counter triggers, and
// builds them once at the end (src/host/bulk-load.ts). What it dropped is written here, in the transaction that
// drops it, so an import that stops half-way (crash, Ctrl-C, a failed batch) leaves a record of what to rebuild:
// the next import finishes it, and `waypost serve` refuses to start until then.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('bulk_load_pending')
    .addColumn('name', 'text', (c) => c.primaryKey())
    // 'index' and 'trigger': `definition` is the CREATE statement; 'search': a search table to refill (SQLite).
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('definition', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('bulk_load_pending').ifExists().execute();
}
