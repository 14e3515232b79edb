// Bulk-load mode (src/host/bulk-load.ts): a large import drops the list indexes, the search index and SQLite's
// change-counter triggers, loads, and builds them at the end. An import that stops half-way (here: interrupted
// after its second batch, or during the rebuild) must leave a record of what is missing, and the next import must
// finish it, so that afterwards the schema is what it was and lists, totals and search answer as before.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { DIALECTS } from '../helpers/db.js';
import { apiFixture, booking, type ApiFixture } from '../api/setup.js';
import { importFile } from '../../src/host/import.js';
import { pendingBulkLoad } from '../../src/host/bulk-load.js';
import type { Waypost } from '../../src/sdk.js';

const STATUSES = ['pending', 'booked', 'completed', 'canceled'];
const SURNAMES = ['Silva', 'Murphy', 'Tanaka'];

/** 2 trips, 6 customers, 30 bookings (statuses, surnames and trips in turn), 10 payments: 48 lines. */
function lines(): string {
  const out: unknown[] = [
    { type: 'trip', id: 7, data: { title: 'Douro Valley', status: 'publish' } },
    { type: 'trip', id: 8, data: { title: 'Alentejo Coast', status: 'publish' } },
  ];
  for (let c = 1; c <= 6; c++) {
    const data = { email: `c${c}@example.com`, first_name: 'Ana', last_name: SURNAMES[c % 3] };
    out.push({ type: 'customer', id: c, data });
  }
  for (let b = 1; b <= 30; b++) {
    const c = 1 + (b % 6);
    out.push({ type: 'booking', id: b, data: booking({
      status: STATUSES[b % 4],
      customer: { id: c, email: `c${c}@example.com`, first_name: 'Ana', last_name: SURNAMES[c % 3] },
      trips: [{ trip_id: b % 3 === 0 ? 8 : 7, title: b % 3 === 0 ? 'Alentejo Coast' : 'Douro Valley', travellers: 1 }],
      created_at: new Date(Date.UTC(2026, 0, 1, 0, b)).toISOString(),
      updated_at: new Date(Date.UTC(2026, 0, 2, 0, 60 - b)).toISOString(),
    }) });
  }
  for (let p = 1; p <= 10; p++) {
    out.push({ type: 'payment', id: p, data: { booking_id: p * 3, status: p % 2 ? 'completed' : 'pending',
      amount: '10.00', currency: 'EUR', gateway: 'stripe' } });
  }
  const path = join(mkdtempSync(join(tmpdir(), 'waypost-bulk-load-')), 'lines.ndjson');
  writeFileSync(path, out.map((l) => JSON.stringify(l)).join('\n'));
  return path;
}

/** Every index and trigger on the database (SQLite's FTS shadow tables are tables, so they are not listed). */
async function schema(wp: Waypost): Promise<string[]> {
  const { rows } = wp.core.store.dialect === 'sqlite'
    ? await sql<{ name: string }>`SELECT type || ' ' || name AS name FROM sqlite_master
        WHERE type IN ('index', 'trigger') ORDER BY 1`.execute(wp.core.db)
    : await sql<{ name: string }>`SELECT 'index ' || indexname AS name FROM pg_indexes
        WHERE schemaname = current_schema() ORDER BY 1`.execute(wp.core.db);
  return rows.map((r) => r.name);
}

const ids = (body: string) => (JSON.parse(body) as Array<{ id: number }>).map((r) => r.id);

/** What the API answers for a few lists whose index the bulk load rebuilt, with their totals. */
async function answers(f: ApiFixture) {
  const out: Record<string, unknown> = {};
  for (const path of ['/bookings?perpage=100', '/bookings?search=silva&perpage=100', '/bookings?status=completed',
    '/bookings?trip_id=8&orderby=updated_at&order=asc&perpage=100', '/bookings?customer_id=2&perpage=100',
    '/customers?search=murphy', '/payments?status=pending', '/trips?search=alentejo']) {
    const res = await f.get(path);
    expect(res.statusCode, path).toBe(200);
    out[path] = { ids: ids(res.body), total: res.headers['x-total-count'] };
  }
  return out;
}

describe.each(DIALECTS)('bulk-load import on %s', (dialect) => {
  let f: ApiFixture;
  beforeEach(async () => { f = await apiFixture(dialect); });
  afterEach(async () => f.wp.close());

  it('an interrupted bulk import leaves its indexes pending; the next run finishes them, and lists and search '
    + 'answer as after a row-by-row import', async () => {
    const path = lines();
    const reference = await apiFixture(dialect);
    try {
      await importFile(reference.wp.core, path, { bulkLoad: false });
      const expected = await answers(reference);
      expect((expected['/bookings?search=silva&perpage=100'] as { ids: number[] }).ids).toHaveLength(10);

      const before = await schema(f.wp);
      let batches = 0;
      await expect(importFile(f.wp.core, path, {
        batchSize: 5, bulkLoad: true, onProgress: () => { if (++batches === 2) throw new Error('interrupted'); },
      })).rejects.toThrow('interrupted');
      expect((await pendingBulkLoad(f.wp.core.db)).length).toBeGreaterThan(0);
      const during = await schema(f.wp);
      expect(during).not.toContain('index bookings_status_created');
      expect(during).toContain('index customers_email'); // the import reads it

      // No option given: the pending bulk load makes this run a bulk load too, and it finishes the rebuild.
      const resumed = await importFile(f.wp.core, path, { batchSize: 5 });
      expect(resumed).toMatchObject({ resumedAfter: 10, bulkLoad: true, lines: 48 });
      expect(await pendingBulkLoad(f.wp.core.db)).toEqual([]);
      expect(await schema(f.wp)).toEqual(before);
      expect(await answers(f)).toEqual(expected);
    } finally {
      await reference.wp.close();
    }
  });

  it('a rebuild that stops half-way is finished by the next import, even of another file', async () => {
    const path = lines();
    const before = await schema(f.wp);
    await expect(importFile(f.wp.core, path, {
      bulkLoad: true, onRebuild: (_step, done) => { if (done === 3) throw new Error('stopped'); },
    })).rejects.toThrow('stopped');
    const pending = await pendingBulkLoad(f.wp.core.db);
    // One step per index and search index left, and one for SQLite's triggers.
    const left = pending.filter((p) => p.kind !== 'trigger').length
      + (pending.some((p) => p.kind === 'trigger') ? 1 : 0);
    expect(left).toBeGreaterThan(0);
    expect(await schema(f.wp)).not.toEqual(before);

    const other = join(mkdtempSync(join(tmpdir(), 'waypost-bulk-load-')), 'one.ndjson');
    writeFileSync(other, JSON.stringify({ type: 'trip', id: 9, data: { title: 'Minho Rivers' } }));
    const steps: string[] = [];
    expect(await importFile(f.wp.core, other, { onRebuild: (step) => steps.push(step) }))
      .toMatchObject({ created: 1, bulkLoad: true });
    expect(steps).toHaveLength(left); // only what was left
    expect(await pendingBulkLoad(f.wp.core.db)).toEqual([]);
    expect(await schema(f.wp)).toEqual(before);
    expect(ids((await f.get('/trips?search=minho')).body)).toEqual([9]);
    expect(ids((await f.get('/bookings?search=tanaka&perpage=100')).body)).toHaveLength(10);
  });

  it('a small import keeps every index up to date as it goes (no bulk load)', async () => {
    const before = await schema(f.wp);
    const summary = await importFile(f.wp.core, lines());
    expect(summary.bulkLoad).toBe(false);
    expect(await schema(f.wp)).toEqual(before);
    expect(ids((await f.get('/bookings?search=murphy&perpage=100')).body)).toHaveLength(10);
  });

  it.runIf(dialect === 'sqlite')('SQLite: the batches write the search index with fewer merges, put back after; '
    + 'a search index an earlier version left empty is refilled', async () => {
    const automerge = async (table: string) => (await sql<{ v: number }>`SELECT v FROM ${sql.table(`${table}_config`)}
      WHERE k = 'automerge'`.execute(f.wp.core.db)).rows[0]?.v ?? 4; // no row: FTS5's default, 4
    const path = lines();
    await expect(importFile(f.wp.core, path, {
      bulkLoad: true, batchSize: 5, onProgress: () => { throw new Error('stop'); },
    })).rejects.toThrow('stop');
    expect(await automerge('bookings_fts')).toBe(16); // while the bulk load is pending
    await importFile(f.wp.core, path, { batchSize: 5 });
    expect(await automerge('bookings_fts')).toBe(4);
    expect(ids((await f.get('/bookings?search=silva&perpage=100')).body)).toHaveLength(10);

    // An earlier version dropped the search index's rows and recorded the table name: the next import refills it.
    await sql`INSERT INTO bulk_load_pending (name, kind, definition) VALUES ('bookings_fts', 'search', 'bookings')`
      .execute(f.wp.core.db);
    await sql`INSERT INTO bookings_fts (bookings_fts) VALUES ('delete-all')`.execute(f.wp.core.db);
    f.wp.core.bus.emit('records.changed', ['bookings']);
    expect(ids((await f.get('/bookings?search=silva&perpage=100')).body)).toHaveLength(0);
    await importFile(f.wp.core, path, { restart: true });
    expect(await pendingBulkLoad(f.wp.core.db)).toEqual([]);
    expect(await automerge('bookings_fts')).toBe(4);
    expect(ids((await f.get('/bookings?search=silva&perpage=100')).body)).toHaveLength(10);
  });
});
