// WAL checkpoints off the hot connections. By default SQLite checkpoints inside the commit that takes the WAL past
// 1,000 pages, on whichever connection made it: the main thread's (its event loop stops: every send waits) or the
// delivery writer thread's (claims and success batches wait). A checkpoint copies the WAL into the database file and
// syncs it: 20-330 ms here under load, which was SQLite's whole delivery tail at 10 webhooks x 200 events/s (p99
// 150-450 ms with it, 12-50 ms without; docs/PERFORMANCE.md, issue 31). While a writer thread runs, its connection
// and the main one checkpoint never, and this thread, on a connection of its own, runs a PASSIVE checkpoint every
// `everyMs` (it waits for no reader or writer and blocks none; the WAL restarts from its start once all of it has
// been copied). Started and stopped with the writer thread (sqlite-writer.ts).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the WAL is copied into the database file while a writer thread runs. */
export const CHECKPOINT_EVERY_MS = 1_000;

export class SqliteCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(path: string, everyMs = CHECKPOINT_EVERY_MS) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    // Source passed to the thread, as the writer's is (see sqlite-writer.ts for why).
    const code = `const __name = (f) => f; (${checkpointerThread.toString()})()`;
    this.worker = new Worker(code, { eval: true, workerData: { path, driver, everyMs } });
    this.worker.unref();
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
  }

  /** A last checkpoint, then the thread ends. */
  async close(): Promise<void> {
    this.worker.ref(); // the process waits for the last checkpoint (unref'd, it could end here mid-await)
    this.worker.postMessage({ close: true });
    await this.exited;
  }
}

/* eslint-disable @typescript-eslint/no-require-imports */
function checkpointerThread(): void {
  const { parentPort, workerData } = require('node:worker_threads');
  const Database = require(workerData.driver);
  const db = new Database(workerData.path);
  db.pragma('synchronous = NORMAL'); // as the other connections: a checkpoint syncs the database file
  db.pragma('wal_autocheckpoint = 0');
  // A failed checkpoint (the file busy in another process's exclusive step) is tried again at the next tick.
  const checkpoint = () => {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch { /* next tick */ }
  };
  const timer = setInterval(checkpoint, workerData.everyMs);
  parentPort.on('message', (m: { close?: boolean }) => {
    if (!m.close) return;
    clearInterval(timer);
    checkpoint();
    db.close();
    parentPort.close();
  });
}
