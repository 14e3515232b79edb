// A second connection to the SQLite file, on its own thread, for the delivery worker's writes (claims and
// results). better-sqlite3 runs every statement synchronously on the calling thread; the worker's writes were
// about a quarter of its CPU per delivery, time the event loop could not spend sending. Here the main thread
// hands over a batch of statements that Kysely built and compiled, and awaits their results, while the thread
// runs them in one BEGIN IMMEDIATE transaction (WAL: readers on the main connection are not blocked). While it runs,
// WAL checkpoints are a third thread's (sqlite-checkpointer.ts), never a commit's on this or the main connection.
//
// The thread's code is a plain function passed as source (`eval`), so the same file works from the TypeScript
// sources (tests, benchmarks) and from the compiled build, with no loader; it may use only what it requires.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';

/** SQLite's own default: a connection checkpoints in the commit that takes the WAL past this many pages. */
const DEFAULT_AUTOCHECKPOINT = 1000;

/** One statement of a batch: its rows (`returns`, for RETURNING) or the number of rows it changed. */
export interface WriteStep {
  sql: string;
  parameters: readonly unknown[];
  returns?: boolean;
  /**
   * Instead of `parameters`: one parameter, the JSON array of the distinct values of `column` in the rows an earlier
   * step of the batch returned (for `… in (select value from json_each(?))`), so a read can follow a write's result
   * in the same transaction without a round trip to the main thread.
   */
  listFrom?: { step: number; column: string };
}

interface Reply {
  id: number;
  results?: Array<unknown[] | number>;
  error?: { message: string; code?: string };
}

export class SqliteWriteError extends Error {
  constructor(message: string, readonly code: string | undefined) {
    super(message);
    this.name = 'SqliteWriteError';
  }
}

export interface WriterOptions {
  main?: { pragma(source: string): unknown };
  checkpointMs?: number;
}

export class SqliteWriter {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, {
    resolve: (r: Array<unknown[] | number>) => void; reject: (e: Error) => void;
  }>();
  private closed = false;
  private checkpointer: SqliteCheckpointer | null = null;

  /**
   * `main`: the process's main connection, which stops checkpointing while this thread runs (the checkpointer does it,
   * sqlite-checkpointer.ts); `checkpointMs`: how often (tests shorten it).
   */
  constructor(private readonly path: string, private readonly options: WriterOptions = {}) {}

  /** Runs the steps in order in one transaction on the writer thread; a failing step rolls back all of them. */
  transaction(steps: WriteStep[]): Promise<Array<unknown[] | number>> {
    if (this.closed) return Promise.reject(new Error('the SQLite writer is closed'));
    const worker = this.start();
    const id = this.nextId++;
    // The SQL texts are sent once per batch; each step names its text by index. The steps travel as one flat array
    // (text index, returns flag, parameter count, parameters…): cheaper to copy to the thread than nested arrays.
    const sqls: string[] = [];
    const index = new Map<string, number>();
    const flat: unknown[] = [];
    for (const s of steps) {
      let i = index.get(s.sql);
      if (i === undefined) index.set(s.sql, i = sqls.push(s.sql) - 1);
      const parameters = s.listFrom ? [s.listFrom.step, s.listFrom.column] : s.parameters;
      flat.push(i, (s.returns === true ? 1 : 0) | (s.listFrom ? 2 : 0), parameters.length);
      for (const p of parameters) flat.push(p);
    }
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) worker.ref(); // keep the process alive while a batch is out
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, sqls, steps: flat });
    });
  }

  /**
   * Starts the thread and opens its connection now rather than on the first batch (about 25 ms here), so the first
   * delivery after a worker starts does not wait for it. Resolves when the thread answers.
   */
  async open(): Promise<void> {
    if (this.closed || this.worker) return;
    await this.transaction([]);
  }

  /** Waits for the batches sent so far, then closes the thread's connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref(); // the process waits for the thread to finish
    worker.postMessage({ close: true }); // queued behind the batches already sent
    await exited;
    await this.checkpointer?.close();
    this.options.main?.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    // `__name`: what esbuild (tsx, vitest) wraps named functions in when it keeps their names.
    const code = `const __name = (f) => f; (${writerThread.toString()})()`;
    const worker = new Worker(code, { eval: true, workerData: { path: this.path, driver } });
    this.checkpointer = new SqliteCheckpointer(this.path, this.options.checkpointMs);
    this.options.main?.pragma('wal_autocheckpoint = 0');
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const w = this.waiting.get(reply.id);
      if (!w) return;
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      if (reply.error) w.reject(new SqliteWriteError(reply.error.message, reply.error.code));
      else w.resolve(reply.results!);
    });
    const failAll = (err: Error) => {
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
      this.worker = null;
    };
    worker.on('error', failAll);
    worker.on('exit', () => failAll(new Error('the SQLite writer thread exited')));
    this.worker = worker;
    return worker;
  }
}

// The thread: runs as its own script (see above), so it requires what it needs and refers to nothing outside; what
// it requires (the driver, given by path) comes untyped.
/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
function writerThread(): void {
  const { parentPort, workerData } = require('node:worker_threads');
  const Database = require(workerData.driver);
  const db = new Database(workerData.path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // No busy handler: SQLite's sleeps 1, 2, 5, 10, 15, 20, 25… ms between tries, so a claim that met the main
  // thread's write (about 1.5 ms, 200 a second) a few times running waited 33-230 ms for a lock free after 2 (issue
  // 31). runWhenFree tries again every 0.2 ms instead, for the same 5 s.
  db.pragma('busy_timeout = 0');
  db.pragma('foreign_keys = ON');
  db.pragma('secure_delete = ON'); // as the main connection (store/db.ts): nothing replaced stays in free space
  db.pragma('wal_autocheckpoint = 0'); // the checkpointer thread's work (sqlite-checkpointer.ts)
  const statements = new Map<string, any>();
  const prepare = (sql: string) => {
    let s = statements.get(sql);
    if (!s) statements.set(sql, s = db.prepare(sql));
    return s;
  };
  const run = db.transaction((sqls: string[], steps: unknown[]) => {
    const results: Array<unknown[] | number> = [];
    for (let at = 0; at < steps.length; ) {
      const statement = prepare(sqls[steps[at] as number]);
      const flags = steps[at + 1] as number;
      const count = steps[at + 2] as number;
      let params = steps.slice(at + 3, at + 3 + count);
      at += 3 + count;
      if (flags & 2) { // listFrom: [step, column]
        const rows = results[params[0] as number] as Array<Record<string, unknown>>;
        params = [JSON.stringify([...new Set(rows.map((r) => r[params[1] as string]))])];
      }
      results.push(flags & 1 ? statement.all(params) : statement.run(params).changes);
    }
    return results;
  });
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const runWhenFree = (sqls: string[], steps: unknown[]) => {
    const until = Date.now() + 5_000;
    for (;;) {
      try {
        return run.immediate(sqls, steps); // a failed try rolled back: the batch runs again whole
      } catch (err: any) {
        if (!String(err?.code).startsWith('SQLITE_BUSY') || Date.now() > until) throw err;
        Atomics.wait(pause, 0, 0, 0.2);
      }
    }
  };
  parentPort.on('message', (m: { id: number; sqls: string[]; steps: unknown[]; close?: boolean }) => {
    if (m.close) {
      db.close();
      parentPort.close();
      return;
    }
    try {
      parentPort.postMessage({ id: m.id, results: m.steps.length === 0 ? [] : runWhenFree(m.sqls, m.steps) });
    } catch (err: any) {
      parentPort.postMessage({ id: m.id, error: { message: String(err?.message ?? err), code: err?.code } });
    }
  });
}
