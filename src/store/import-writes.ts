// How the importer (src/host/pipeline.ts) writes batch N while its main thread reads and decides batch N + 1, behind
// one interface: SQLite's writer thread (sqlite-writer.ts) commits it, so parsing and SQLite's work run on two cores;
// PostgreSQL's server writes it on a pooled connection.
//
// PostgreSQL's locks (src/store/locks.ts, named by src/host/locks.ts) still cover each batch from before its reads
// until after its commit: they are session-level advisory locks on one connection kept for the import, taken for
// batch N + 1 before it is read and given back once it committed. Transaction-level locks could not do that: batch
// N + 1 would wait for batch N's locks (consecutive batches share customers), and its reads must come after its locks.
// A session's own locks do not block each other (they count), so the import never waits for itself; a server write
// waits as before. SQLite takes none: its one writer holds the only write lock.
import type pg from 'pg';
import { CompiledQuery, type Kysely } from 'kysely';
import { combineWrites, pgBatchTransaction } from './bulk-pg.js';
import { lockKeys } from './locks.js';
import type { SqliteWriter } from './sqlite-writer.js';
import type { Database } from './tables.js';

/** Runs a write transaction again when the database aborted it for a conflict (src/host/locks.ts retryOnConflict). */
export type Retry = <T>(run: () => Promise<T>) => Promise<T>;

/** A batch's locks as `lock` took them, for `write` to give back. */
export type HeldLocks = readonly string[];

export interface ImportWrites {
  /** Takes a batch's locks (named by `names`) before its records are read; held until `write` committed it. */
  lock(names: () => string[]): Promise<HeldLocks>;
  /** Writes a batch's statements in one transaction, then calls `committed`, then gives back `held`. */
  write(statements: CompiledQuery[], held: HeldLocks, committed: () => void): Promise<void>;
  /** Ends the import's writes (PostgreSQL: the lock session, and with it any lock still held). */
  close(): void;
  /** PostgreSQL: the lock session's backend (pg_stat_activity.pid). */
  readonly lockPid?: number;
}

/** What the importer asks for: the page cache it writes with (KiB), and how a conflict is retried. */
export interface ImportWritesOptions {
  cacheKib: number;
  retry: Retry;
}

/** SQLite on a file: batches go to the writer thread, whose page cache is set for the import. */
export function sqliteImportWrites(writer: SqliteWriter) {
  return async ({ cacheKib }: ImportWritesOptions): Promise<ImportWrites> => {
    await writer.transaction([{ sql: `PRAGMA cache_size = -${cacheKib}`, parameters: [] }]);
    return {
      lock: async () => [],
      write: async (statements, _held, committed) => {
        await writer.transaction(statements.map((q) => ({ sql: q.sql, parameters: q.parameters })));
        committed();
      },
      close: () => {},
    };
  };
}

/** PostgreSQL: a lock session for the import, and each batch's transaction on the pool. */
export function pgImportWrites(db: Kysely<Database>, pool: pg.Pool) {
  return async ({ retry }: ImportWritesOptions): Promise<ImportWrites> => {
    const locks = await pool.connect();
    const { rows } = await locks.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return new PgImportWrites(db, locks, rows[0].pid, retry);
  };
}

const keyList = (keys: readonly string[]) => `'{${keys.join(',')}}'::bigint[]`;

class PgImportWrites implements ImportWrites {
  /** The batch being written, settled when it committed and gave back its locks. */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(private readonly db: Kysely<Database>, private readonly locks: pg.PoolClient,
    readonly lockPid: number, private readonly retry: Retry) {}

  async lock(names: () => string[]): Promise<HeldLocks> {
    const keys = lockKeys(names());
    await this.take(keys);
    return keys;
  }

  async write(statements: CompiledQuery[], held: HeldLocks, committed: () => void): Promise<void> {
    const combined = combineWrites(statements);
    const run = async () => {
      await this.retry(() => pgBatchTransaction(this.db, [], async (conn) => {
        for (const q of combined) await conn.executeQuery(q);
        // The batch's locks live in the lock session: if it ended (killed, cut off), they went with it, and the
        // batch must not commit unprotected. Asked from this connection (the lock session's own queue may be
        // waiting for the next batch's locks), last before COMMIT.
        const alive = await conn.executeQuery(CompiledQuery.raw('SELECT 1 FROM pg_stat_activity WHERE pid = $1',
          [this.lockPid]));
        if (alive.rows.length === 0) throw new Error('the import\'s lock session ended before the batch committed');
      }));
      committed();
      // Committed: if giving back the locks fails, the lock session is gone (and its locks with it); the next batch's
      // lock() reports that, not this batch, which is saved.
      await this.unlock(held).catch(() => undefined);
    };
    const done = run();
    this.writing = done.catch(() => undefined);
    await done;
  }

  /** Ends the lock session (a session's advisory locks end with it, whatever happened). */
  close(): void {
    this.locks.release(true);
  }

  private async take(keys: readonly string[]): Promise<void> {
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

  private async unlock(keys: HeldLocks): Promise<void> {
    if (keys.length) await this.locks.query(`SELECT pg_advisory_unlock(k) FROM unnest(${keyList(keys)}) AS k`);
  }
}
