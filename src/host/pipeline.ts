// The importer's pipeline: the main thread reads, decides and compiles batch N + 1 while the store writes batch N
// (`core.store.sql.importWrites`, src/store/import-writes.ts: SQLite's writer thread, PostgreSQL's server). A batch
// is sent only after the one before it committed (a failed batch must stop the import before anything after it is
// written), and is decided against the batch still in flight (its records as they will be), not only against what
// is committed. Its locks, where the store takes them, cover it from before its reads until after its commit.
import type { CompiledQuery } from 'kysely';
import type { Core } from '../core.js';
import { iso } from '../records/normalize.js';
import type { HeldLocks, ImportWrites } from '../store/import-writes.js';
import { announce, Batch, type BulkItem, type BulkOutcome } from './bulk.js';
import { retryOnConflict, writeLockNames } from './locks.js';

export class ImportPipeline {
  private inflight: Batch | null = null;
  private readonly held = new Map<Batch, HeldLocks>();

  private constructor(private readonly core: Core, private readonly writes: ImportWrites) {}

  /** The store's pipeline, writing with a page cache of `cacheKib` (null: the store writes each batch in turn). */
  static async open(core: Core, cacheKib: number): Promise<ImportPipeline | null> {
    const writes = await core.store.sql.importWrites({ cacheKib, retry: retryOnConflict });
    return writes && new ImportPipeline(core, writes);
  }

  /** PostgreSQL: the backend of the session holding the batches' locks. */
  get lockPid(): number | undefined {
    return this.writes.lockPid;
  }

  /** Locks (where the store does) and reads a batch's records, and decides it (nothing written yet). */
  async prepare(items: BulkItem[]): Promise<{ batch: Batch; outcomes: BulkOutcome[] }> {
    const held = await this.writes.lock(() => items.flatMap((item) => writeLockNames(item.resource, item.id,
      item.input)));
    const batch = new Batch(this.core.db, iso(this.core.clock.now()), this.inflight);
    this.held.set(batch, held);
    return { batch, outcomes: await batch.decide(items) };
  }

  /** Writes a prepared batch and `extra` statements in one transaction, then gives back the batch's locks. */
  async commit(batch: Batch, extra: CompiledQuery[]): Promise<void> {
    this.inflight = batch;
    const held = this.held.get(batch) ?? [];
    this.held.delete(batch);
    await this.writes.write([...batch.statements(), ...extra], held, () => announce(this.core, batch.resources()));
  }

  close(): void {
    this.writes.close();
  }
}
