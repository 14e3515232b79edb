// PostgreSQL's import pipeline: the main thread reads and decides batch N + 1 while the server writes batch N, as
// SqlitePipeline (bulk.ts) does with its writer thread. Decided against the batch still in flight (its records as
// they will be), and sent only after it committed.
//
// The locks (src/host/locks.ts) still cover each batch from before its reads until after its commit: they are
// session-level advisory locks on one connection kept for the import, taken for batch N + 1 before it is read and
// given back once it committed. Transaction-level locks could not do that: batch N + 1 would wait for batch N's
// locks (consecutive batches share customers), and its reads must come after its locks. A session's own locks do
// not block each other (they count), so the import never waits for itself; a server write waits as before.
import type pg from 'pg';
import { CompiledQuery } from 'kysely';
import type { Core } from '../core.js';
import { iso } from '../records/normalize.js';
import { lockKeys } from '../store/locks.js';
import { announce, Batch, type BulkItem, type BulkOutcome } from './bulk.js';
import { combineWrites, pgBatchTransaction } from '../store/bulk-pg.js';
import { retryOnConflict, writeLockNames } from './locks.js';

const keyList = (keys: string[]) => `'{${keys.join(',')}}'::bigint[]`;

export class PgPipeline {
  private inflight: Batch | null = null;
  /** The batch being written, settled when it committed and gave back its locks. */
  private writing: Promise<unknown> = Promise.resolve();
  private readonly held = new Map<Batch, string[]>();

  private constructor(private readonly core: Core, private readonly locks: pg.PoolClient,
    /** The lock session's backend (pg_stat_activity.pid). */
    readonly lockPid: number) {}

  static async open(core: Core): Promise<PgPipeline> {
    const locks = await core.store.pg!.main.connect();
    const { rows } = await locks.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return new PgPipeline(core, locks, rows[0].pid);
  }

  /** Locks and reads a batch's records and decides it (nothing written yet). */
  async prepare(items: BulkItem[]): Promise<{ batch: Batch; outcomes: BulkOutcome[] }> {
    const keys = lockKeys(items.flatMap((item) => writeLockNames(item.resource, item.id, item.input)));
    await this.lock(keys);
    const batch = new Batch(this.core.db, iso(this.core.clock.now()), this.inflight);
    this.held.set(batch, keys);
    return { batch, outcomes: await batch.decide(items) };
  }

  /** Writes a prepared batch and `extra` statements in one transaction, then gives back the batch's locks. */
  async commit(batch: Batch, extra: CompiledQuery[]): Promise<void> {
    this.inflight = batch;
    const statements = combineWrites([...batch.statements(), ...extra]);
    const run = async () => {
      await retryOnConflict(() => pgBatchTransaction(this.core.db, [], async (conn) => {
        for (const q of statements) await conn.executeQuery(q);
        // The batch's locks live in the lock session: if it ended (killed, cut off), they went with it, and the
        // batch must not commit unprotected. Asked from this connection (the lock session's own queue may be
        // waiting for the next batch's locks), last before COMMIT.
        const alive = await conn.executeQuery(CompiledQuery.raw('SELECT 1 FROM pg_stat_activity WHERE pid = $1',
          [this.lockPid]));
        if (alive.rows.length === 0) throw new Error('the import\'s lock session ended before the batch committed');
      }));
      announce(this.core, batch.resources());
      // Committed: if giving back the locks fails, the lock session is gone (and its locks with it); the next batch's
      // lock() reports that, not this batch, which is saved.
      await this.unlock(batch).catch(() => undefined);
    };
    const done = run();
    this.writing = done.catch(() => undefined);
    await done;
  }

  /** Ends the lock session (a session's advisory locks end with it, whatever happened). */
  close(): void {
    this.locks.release(true);
  }

  private async lock(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.locks.query(`SELECT pg_advisory_lock(k) FROM unnest(${keyList(keys)}) AS k`);
        return;
      } catch (err) {
        // A server write waited for a lock of the batch being written while holding one this batch needs
        // (40P01, the server's detector chose this side): wait for that batch to let go of its locks, give back
        // the ones this statement got before it failed (now the only ones held), and take them again.
        if ((err as { code?: string }).code !== '40P01' || attempt >= 5) throw err;
        await this.writing;
        await this.locks.query('SELECT pg_advisory_unlock_all()');
      }
    }
  }

  private async unlock(batch: Batch): Promise<void> {
    const keys = this.held.get(batch) ?? [];
    this.held.delete(batch);
    if (keys.length) await this.locks.query(`SELECT pg_advisory_unlock(k) FROM unnest(${keyList(keys)}) AS k`);
  }
}
