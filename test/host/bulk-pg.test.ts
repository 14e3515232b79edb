// PostgreSQL's import pipeline (src/host/pipeline.ts, src/store/import-writes.ts) decides a batch before it writes
// it, and meanwhile the server may write too. Its session-level locks must still make a host write to a record the
// batch holds wait until the batch committed, and then see it: the same outcome as if the two had run one after the
// other.
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DIALECTS } from '../helpers/db.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { ImportPipeline } from '../../src/host/pipeline.js';
import { putRecord } from '../../src/host/write.js';
import { validateInput } from '../../src/records/validate.js';
import { manualClock } from '../helpers/clock.js';

const postgres = DIALECTS.includes('postgres');

describe.skipIf(!postgres)('the PostgreSQL import pipeline and a concurrent host write', () => {
  const open: Waypost[] = [];
  afterEach(async () => {
    for (const wp of open.splice(0)) await wp.close();
  });

  it('a host write to a record a decided batch holds waits for its commit, then updates what it wrote', async () => {
    const wp = await testWaypost({ dialect: 'postgres', clock: manualClock(Date.parse('2026-03-01T10:00:00Z')) });
    open.push(wp);
    const pipeline = (await ImportPipeline.open(wp.core, 16_384))!;
    try {
      const input = validateInput('customers', { email: 'ana@example.com', first_name: 'Ana' });
      const { batch, outcomes } = await pipeline.prepare([{ resource: 'customers', id: 3, input }]);
      expect(outcomes).toEqual([{ created: true, changed: true }]);
      let settled = false;
      const write = putRecord(wp.core, 'customers', 3, { email: 'ana@example.com', first_name: 'Anabela' },
        { events: false }).finally(() => { settled = true; });
      await new Promise((r) => setTimeout(r, 300));
      expect(settled).toBe(false); // waiting for the batch's lock
      await pipeline.commit(batch, []);
      const result = await write;
      expect(result.created).toBe(false); // it saw the imported customer
      const { rows } = await sql<{ data: string }>`SELECT data FROM customers WHERE id = 3`.execute(wp.core.db);
      expect(JSON.parse(rows[0].data)).toMatchObject({ first_name: 'Anabela' });
      const count = await sql<{ total: number }>`SELECT total FROM record_counts WHERE resource = 'customers'`
        .execute(wp.core.db);
      expect(Number(count.rows[0].total)).toBe(1);
    } finally {
      pipeline.close();
    }
  });

  it('a batch whose lock session ended is not written (its locks went with the session)', async () => {
    const wp = await testWaypost({ dialect: 'postgres' });
    open.push(wp);
    const pipeline = (await ImportPipeline.open(wp.core, 16_384))!;
    try {
      const input = validateInput('customers', { email: 'rui@example.com', first_name: 'Rui' });
      const { batch } = await pipeline.prepare([{ resource: 'customers', id: 4, input }]);
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND pid = ${pipeline.lockPid}`.execute(wp.core.db);
      expect(Number(rows[0].n)).toBeGreaterThan(0); // the batch's locks, held by the lock session
      await sql`SELECT pg_terminate_backend(${pipeline.lockPid})`.execute(wp.core.db);
      await expect(pipeline.commit(batch, [])).rejects.toThrow('lock session ended');
      const left = await sql<{ n: number }>`SELECT count(*) AS n FROM customers`.execute(wp.core.db);
      expect(Number(left.rows[0].n)).toBe(0);
    } finally {
      pipeline.close();
    }
  });
});
