import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openStore } from '../../src/store/db.js';
import { killCli, runCli, startCli, tempDir, tempSqliteUrl } from './run.js';

const trip = (id: number) => JSON.stringify({ type: 'trip', id,
  data: { title: `Trip ${id}`, destinations: ['Portugal'] } });

async function countTrips(databaseUrl: string): Promise<number> {
  const store = openStore(databaseUrl);
  try {
    return Number((await store.db.selectFrom('trips').select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow()).n);
  } finally {
    await store.close();
  }
}

describe('waypost import', () => {
  it('imports good lines, reports bad ones with their line numbers on stderr, and prints a summary', async () => {
    const DATABASE_URL = tempSqliteUrl();
    const file = join(tempDir(), 'data.ndjson');
    writeFileSync(file, [
      trip(1),
      JSON.stringify({ type: 'customer', id: 2, data: { email: 'not-an-email' } }),
      trip(2),
      '{oops',
      JSON.stringify({ type: 'review', data: { id: 9, trip_id: 1, author_name: 'Ana', rating: 5 } }),
    ].join('\n'));

    const first = await runCli(['import', file], { DATABASE_URL });
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/^line 2: data\.email must match format "email"$/m);
    expect(first.stderr).toMatch(/^line 4: \(line\) is not valid JSON/m);
    expect(first.stderr).toMatch(/importing: 100\.0%, 5 lines, [\d,]+ lines\/s/); // the progress line (not a TTY here)
    expect(first.stdout.trim()).toBe('imported 3 (3 new, 0 changed), unchanged 0, skipped 2');
    expect(await countTrips(DATABASE_URL)).toBe(2);

    const again = await runCli(['import', file], { DATABASE_URL });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already imported up to line 5; nothing to do');

    const restart = await runCli(['import', file, '--restart', '--json'], { DATABASE_URL });
    expect(restart.code).toBe(0);
    expect(JSON.parse(restart.stdout))
      .toMatchObject({ lines: 5, created: 0, unchanged: 3, skipped: 2, errors: [{ line: 2 }, { line: 4 }] });
  });

  it('exits 1 when no line could be imported, or the file cannot be read', async () => {
    const DATABASE_URL = tempSqliteUrl();
    const file = join(tempDir(), 'bad.ndjson');
    writeFileSync(file, '{"type":"widget","id":1,"data":{}}\n[]\n');
    const allBad = await runCli(['import', file], { DATABASE_URL });
    expect(allBad.code).toBe(1);
    expect(allBad.stdout).toContain('skipped 2');

    const path = join(tempDir(), 'missing.ndjson');
    const missing = await runCli(['import', path], { DATABASE_URL });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`waypost: cannot import ${path}: there is no such file (check the path)\n`);
    const asJson = await runCli(['import', path, '--json'], { DATABASE_URL });
    expect(asJson.code).toBe(1);
    expect(asJson.stdout).toBe('');
    expect(JSON.parse(asJson.stderr))
      .toEqual({ error: { code: 'file_not_found', message: expect.stringContaining('there is no such file') } });
  });

  it('continues where a killed run stopped', async () => {
    const DATABASE_URL = tempSqliteUrl();
    const file = join(tempDir(), 'big.ndjson');
    const total = 100_000;
    writeFileSync(file, Array.from({ length: total }, (_, i) => trip(i + 1)).join('\n'));

    const child = startCli(['import', file, '--batch-size', '200'], { DATABASE_URL });
    const exited = new Promise((resolve) => child.once('close', resolve));
    // Kill it as soon as some batches have committed (the database shows them), long before the end.
    const deadline = Date.now() + 30_000;
    let landed = 0;
    while (Date.now() < deadline && landed === 0) {
      await new Promise((r) => setTimeout(r, 20));
      landed = await countTrips(DATABASE_URL).catch(() => 0); // no table until the CLI has migrated
    }
    killCli(child);
    await exited;
    const afterKill = await countTrips(DATABASE_URL);
    expect(afterKill).toBeGreaterThan(0);
    expect(afterKill).toBeLessThan(total);
    expect(afterKill % 200).toBe(0); // whole batches only

    const resumed = await runCli(['import', file, '--batch-size', '200', '--json'], { DATABASE_URL });
    expect(resumed.code).toBe(0);
    const summary = JSON.parse(resumed.stdout);
    expect(summary.resumedAfter).toBe(afterKill);
    expect(summary.created).toBe(total - afterKill);
    expect(summary.unchanged).toBe(0);
    expect(await countTrips(DATABASE_URL)).toBe(total);
  }, 90_000);
  it('a killed bulk load: serve refuses to start until the import is run again, which builds the indexes', async () => {
    const DATABASE_URL = tempSqliteUrl();
    const file = join(tempDir(), 'big.ndjson');
    const total = 100_000;
    writeFileSync(file, Array.from({ length: total }, (_, i) => trip(i + 1)).join('\n'));

    const child = startCli(['import', file, '--batch-size', '200', '--bulk-load'], { DATABASE_URL });
    const exited = new Promise((resolve) => child.once('close', resolve));
    const deadline = Date.now() + 30_000;
    let landed = 0;
    while (Date.now() < deadline && landed === 0) {
      await new Promise((r) => setTimeout(r, 20));
      landed = await countTrips(DATABASE_URL).catch(() => 0);
    }
    killCli(child);
    await exited;
    const afterKill = await countTrips(DATABASE_URL);
    expect(afterKill).toBeLessThan(total);

    const serve = await runCli(['serve', '--role', 'api'], { DATABASE_URL });
    expect(serve.code).toBe(1);
    expect(serve.stderr)
      .toMatch(/an import loading in bulk has not built its indexes yet .* run the same `waypost import` again/);

    const resumed = await runCli(['import', file, '--batch-size', '200', '--json'], { DATABASE_URL });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('building indexes:');
    expect(JSON.parse(resumed.stdout))
      .toMatchObject({ resumedAfter: afterKill, created: total - afterKill, bulkLoad: true });
    const store = openStore(DATABASE_URL);
    try {
      expect((await sql`SELECT * FROM bulk_load_pending`.execute(store.db)).rows).toEqual([]);
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM trips_fts
        WHERE search_text MATCH '"trip 9999"'`.execute(store.db);
      expect(rows[0].n).toBe(11); // trips 9999 and 99990-99999: the search index holds every record
    } finally {
      await store.close();
    }
  }, 90_000);
});
