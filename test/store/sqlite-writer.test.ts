// The SQLite writer thread (the delivery worker's claims and successes) beside the main connection (the Host API's
// writes): it waits for the main connection's write lock by trying again every 0.2 ms instead of SQLite's busy
// handler (whose growing sleeps made claims wait 33-230 ms for a lock held 2 ms), and while it runs, WAL
// checkpoints are the checkpointer thread's, never a commit's on either hot connection (issue 31).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteWriter } from '../../src/store/sqlite-writer.js';

function freshFile() {
  const path = join(mkdtempSync(join(tmpdir(), 'waypost-writer-')), 'w.db');
  const main = new SqliteDatabase(path);
  main.pragma('journal_mode = WAL');
  main.pragma('synchronous = NORMAL');
  main.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  return { path, main };
}

const insert = (id: number) => ({ sql: 'INSERT INTO t (id, body) VALUES (?, ?)', parameters: [id, 'x'.repeat(2000)] });

describe('the SQLite writer thread', () => {
  const open: Array<{ writer: SqliteWriter; main: SqliteDatabase.Database }> = [];
  afterEach(async () => {
    for (const { writer, main } of open.splice(0)) {
      await writer.close();
      main.close();
    }
  });

  it('waits for the main connection to finish its write, then commits (no SQLITE_BUSY)', async () => {
    const { path, main } = freshFile();
    const writer = new SqliteWriter(path, { main });
    open.push({ writer, main });
    await writer.open();
    main.exec('BEGIN IMMEDIATE');
    main.prepare('INSERT INTO t (id, body) VALUES (1, ?)').run('held');
    const batch = writer.transaction([insert(2)]);
    let settled = false;
    void batch.finally(() => { settled = true; });
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false); // still waiting for the lock, not failed
    main.exec('COMMIT');
    await expect(batch).resolves.toEqual([1]);
    expect(main.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2 });
  });

  it('leaves checkpoints to its checkpointer while it runs, then gives them back to the main connection', async () => {
    const { path, main } = freshFile();
    const writer = new SqliteWriter(path, { main, checkpointMs: 50 });
    open.push({ writer, main });
    await writer.open();
    expect(main.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    // 3,000 rows of 2 KB, far past the 1,000 pages at which a connection would checkpoint in its own commit.
    const row = main.prepare('INSERT INTO t (id, body) VALUES (?, ?)');
    for (let i = 0; i < 30; i++) {
      main.transaction(() => {
        for (let k = 0; k < 100; k++) row.run(i * 100 + k + 10, 'y'.repeat(2000));
      })();
    }
    await writer.transaction([insert(5)]);
    // The checkpointer copies the WAL into the file; the next write then starts the WAL from its beginning. Without
    // it (no connection checkpoints), the WAL would hold every frame written above.
    await expect.poll(() => {
      main.prepare('INSERT OR REPLACE INTO t (id, body) VALUES (1, ?)').run(String(Date.now()));
      const [{ log }] = main.pragma('wal_checkpoint(NOOP)') as Array<{ log: number }>;
      return log;
    }, { timeout: 5_000, interval: 100 }).toBeLessThan(50);
    await writer.close();
    open.length = 0;
    expect(main.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    main.close();
  });
});
