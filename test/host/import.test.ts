import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { DIALECTS } from '../helpers/db.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import type { RecordChange } from '../../src/host/changes.js';
import { importFile, parseImportLine } from '../../src/host/import.js';
import { createWebhook } from '../../src/webhooks/manage.js';
import { EVENT_TYPES } from '../../src/webhooks/catalog.js';

const booking = (over: Record<string, unknown> = {}) => ({
  status: 'booked', currency: 'EUR', total_amount: '1250.00', paid_amount: '250.00',
  customer: { id: 3, email: 'ana@example.com', first_name: 'Ana' },
  trips: [{ trip_id: 7, title: 'Douro Valley Wine Trail', start_date: '2027-05-01', travellers: 2,
    line_items: [{ label: 'Adult', quantity: 2, price: '625.00', total: '1250.00' }] }],
  engine_version: '6.8.0', cart_version: '4.1', ...over,
});

/** One good line of every type, with bad lines in between (line numbers noted). */
const MIXED = [
  JSON.stringify({ type: 'trip', id: 7, data: { title: 'Douro Valley Wine Trail',
    price: { amount: '1290.00', currency: 'EUR' }, destinations: ['Portugal'] } }),
  // id inside data
  JSON.stringify({ type: 'customer', data: { id: 3, email: 'ana@example.com', first_name: 'Ana',
    last_name: 'Silva' } }),
  JSON.stringify({ type: 'booking', id: 101, data: booking() }),
  JSON.stringify({ type: 'booking', id: 102, data: booking({ total_amount: 'lots' }) }), // line 4: invalid record
  '{"type":"payment","id":', // line 5: bad JSON
  '', // line 6: blank, ignored
  JSON.stringify({ type: 'widget', id: 1, data: {} }), // line 7: unknown type
  // line 8: no id
  JSON.stringify({ type: 'payment', data: { booking_id: 101, status: 'completed', amount: '250.00',
    currency: 'EUR' } }),
  // plural type
  JSON.stringify({ type: 'payments', id: 501, data: { booking_id: 101, status: 'completed', amount: '250.00',
    currency: 'EUR', gateway: 'stripe' } }),
  // id as a digit string
  JSON.stringify({ type: 'enquiry', id: '12', data: { full_name: 'Bo Berg', email: 'bo@example.com',
    trip: { id: 7 } } }),
  JSON.stringify({ type: 'review', id: 4, data: { trip_id: 7, author_name: 'Bo', rating: 5, content: 'Wonderful' } }),
].join('\n');

function tempFile(name: string, content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'waypost-import-')), name);
  writeFileSync(path, content);
  return path;
}

const count = async (wp: Waypost,
  table: 'trips' | 'customers' | 'bookings' | 'payments' | 'enquiries' | 'reviews' | 'events' | 'deliveries') =>
  Number((await wp.core.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

const tripLines = (from: number, to: number) =>
  Array.from({ length: to - from + 1 },
    (_, i) => JSON.stringify({ type: 'trip', id: from + i, data: { title: `Trip ${from + i}` } })).join('\n');

describe('parseImportLine', () => {
  it('takes the id from the top level or from data.id, and accepts singular or plural types', () => {
    expect(parseImportLine('{"type":"trips","id":5,"data":{"title":"A"}}'))
      .toMatchObject({ resource: 'trips', id: 5, input: { title: 'A' } });
    expect(parseImportLine('{"type":"trip","data":{"id":6,"title":"A"}}'))
      .toMatchObject({ resource: 'trips', id: 6, input: { title: 'A' } });
    expect(parseImportLine('{"type":"trip","data":{"id":6,"title":"A"}}').input).not.toHaveProperty('id');
  });

  it('takes the product\'s other status spellings and reviews without a rating, as the Host API does', () => {
    const pay = (status: string) =>
      JSON.stringify({ type: 'payment', id: 1, data: { booking_id: 1, status, amount: '1.00', currency: 'EUR' } });
    expect(parseImportLine(pay('voucher-awaiting')).input).toMatchObject({ status: 'voucher-awaiting' });
    expect(() => parseImportLine(pay('paid'))).toThrow(/^data\.status must be one of: pending, completed, /);
    const review = '{"type":"review","id":5,"data":{"trip_id":1,"author_name":"A","rating":null}}';
    expect(parseImportLine(review).input).toMatchObject({ rating: null });
  });

  it('names the offending field', () => {
    expect(() => parseImportLine('{"type":"trip","id":5,"data":{"id":6,"title":"A"}}'))
      .toThrow('data.id 6 does not match id 5');
    expect(() => parseImportLine('{"type":"trip","id":0,"data":{"title":"A"}}'))
      .toThrow('id must be a positive integer');
    expect(() => parseImportLine('{"type":"trip","id":5,"data":{"title":"A"},"extra":1}'))
      .toThrow('extra is not a known field');
    expect(() => parseImportLine('{"id":5,"data":{"title":"A"}}')).toThrow('type is required');
    expect(() => parseImportLine('{"type":"trip","id":5,"data":[]}')).toThrow('data must be a JSON object');
    expect(() => parseImportLine('{"type":"trip","id":5,"data":{}}')).toThrow('data.title is required');
    expect(() => parseImportLine('{"type":"review","id":5,"data":{"trip_id":1,"author_name":"A","rating":9}}'))
      .toThrow('data.rating must be <= 5');
    expect(() => parseImportLine('{"type":"trip","id":5,"data":{"title":"A\\u0000"}}')).toThrow('NUL');
    // A leap second is RFC 3339 but no JavaScript time: skipped as a bad line, not a failed batch.
    expect(() => parseImportLine('{"type":"trip","id":5,"data":{"title":"A","created_at":"2016-12-31T23:59:60Z"}}'))
      .toThrow('data.created_at must match format "date-time"');
  });
});

describe.each(DIALECTS)('bulk import on %s', (dialect) => {
  let wp: Waypost;
  let seen: RecordChange[];
  beforeEach(async () => {
    wp = await testWaypost({ dialect });
    seen = [];
    // A write listener stands for everything that fires events: import must not reach it.
    wp.core.writeListeners.push(async (_trx, change) => { seen.push(change); });
  });
  afterEach(async () => wp.close());

  it('imports all six types, reports bad lines by number and skips them, and fires nothing', async () => {
    await createWebhook(wp.core, { name: 'all events', url: 'http://127.0.0.1:9/hook',
      events: EVENT_TYPES.map((e) => e.type) });
    const bad: Array<[number, string]> = [];
    const summary = await importFile(wp.core, tempFile('mixed.ndjson', MIXED),
      { onBadLine: (line, message) => bad.push([line, message]) });

    expect(bad.map(([line]) => line)).toEqual([4, 5, 7, 8]);
    expect(bad[0][1]).toContain('data.total_amount');
    expect(bad[1][1]).toContain('not valid JSON');
    expect(bad[2][1]).toContain('"widget" is not a known type');
    expect(bad[3][1]).toContain('id is required');
    expect(summary).toMatchObject({ lines: 11, created: 6, changed: 0, unchanged: 0, skipped: 4, resumedAfter: 0 });
    expect(summary.errors).toEqual(bad.map(([line, message]) => ({ line, message })));

    for (const table of ['trips', 'customers', 'bookings', 'payments', 'enquiries', 'reviews'] as const) {
      expect(await count(wp, table)).toBe(1);
    }
    const stored = await wp.core.db.selectFrom('bookings').select('data').where('id', '=', 101)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(stored.data))
      .toMatchObject({ customer: { id: 3, email: 'ana@example.com' }, total_amount: '1250.00', data_complete: true });
    expect(await wp.core.db.selectFrom('enquiries').select('id').executeTakeFirstOrThrow()).toEqual({ id: 12 });

    expect(seen).toEqual([]);
    expect(await count(wp, 'events')).toBe(0);
    expect(await count(wp, 'deliveries')).toBe(0);
    // The same write through the normal path does reach the listeners and the subscriber (so the above can fail).
    await wp.put('reviews', 5, { trip_id: 7, author_name: 'Cy', rating: 4 });
    expect(seen.map((c) => `${c.resource}/${c.id}`)).toEqual(['reviews/5']);
    expect(await count(wp, 'deliveries')).toBe(1);
  });

  it('is idempotent: importing the same data again changes nothing', async () => {
    const path = tempFile('mixed.ndjson', MIXED);
    await importFile(wp.core, path);
    const before = await wp.core.db.selectFrom('bookings').select(['data', 'updated_at']).execute();
    const again = await importFile(wp.core, path, { restart: true });
    expect(again).toMatchObject({ created: 0, changed: 0, unchanged: 6, skipped: 4 });
    expect(await wp.core.db.selectFrom('bookings').select(['data', 'updated_at']).execute()).toEqual(before);
    expect(await count(wp, 'customers')).toBe(1);
  });

  it('resumes after the last committed batch when a run is interrupted', async () => {
    const path = tempFile('trips.ndjson', tripLines(1, 25));
    // Interrupt the first run right after its second batch (lines 1-10) has committed.
    let batches = 0;
    await expect(importFile(wp.core, path, {
      batchSize: 5,
      onProgress: () => { if (++batches === 2) throw new Error('interrupted'); },
    })).rejects.toThrow('interrupted');
    expect(await count(wp, 'trips')).toBe(10);

    const progress: number[] = [];
    const resumed = await importFile(wp.core, path, { batchSize: 5, onProgress: (p) => progress.push(p.lines) });
    expect(resumed).toMatchObject({ resumedAfter: 10, lines: 25, created: 15, unchanged: 0 });
    expect(progress).toEqual([5, 10, 15]); // only lines 11-25 were read this time
    expect(await count(wp, 'trips')).toBe(25);

    // Finished: a third run has nothing left to do; --restart goes over everything again.
    expect(await importFile(wp.core, path)).toMatchObject({ resumedAfter: 25, lines: 25, created: 0, unchanged: 0 });
    expect(await importFile(wp.core, path, { restart: true })).toMatchObject({ resumedAfter: 0, unchanged: 25 });
  });

  it('ends a batch at its byte bound as well as its line count, so long lines do not pile up in memory', async () => {
    // 12 trips of about 10 kB each: a 25 kB bound commits them two at a time, whatever the line count allows.
    const destinations = Array.from({ length: 50 }, (_, i) => `Destination ${i} ${'x'.repeat(180)}`);
    const lines = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({ type: 'trip', id: i + 1, data: { title: `Trip ${i + 1}`, destinations } }));
    const path = tempFile('long.ndjson', `${lines.join('\n')}\n`);
    const progress: number[] = [];
    const summary = await importFile(wp.core, path, { batchSize: 1000, batchBytes: 25_000,
      onProgress: (p) => progress.push(p.lines) });
    expect(summary).toMatchObject({ created: 12, skipped: 0 });
    expect(progress).toEqual([3, 6, 9, 12]);
    expect(await count(wp, 'trips')).toBe(12);
  });

  it('starts over when the file has changed since the last run', async () => {
    const path = tempFile('trips.ndjson', tripLines(1, 3));
    await importFile(wp.core, path);
    writeFileSync(path, `${tripLines(1, 3)}\n${tripLines(4, 5)}\n`);
    expect(await importFile(wp.core, path)).toMatchObject({ resumedAfter: 0, created: 2, unchanged: 3 });
  });

  it('writes each batch in one transaction: a failing batch leaves nothing of itself and can be resumed', async () => {
    const path = tempFile('batches.ndjson',
      [tripLines(1, 3), tripLines(4, 5),
      JSON.stringify({ type: 'review', id: 1, data: { trip_id: 1, author_name: 'A', rating: 5 } })].join('\n'));
    await sql`DROP TABLE reviews`.execute(wp.core.db); // makes the second batch (lines 4-6) fail in the database
    await expect(importFile(wp.core, path, { batchSize: 3 }))
      .rejects.toThrow(/lines 4–6 could not be written .* continue from line 4/);
    expect((await wp.core.db.selectFrom('trips').select('id').orderBy('id').execute()).map((r) => r.id))
      .toEqual([1, 2, 3]);
    const row = await wp.core.db.selectFrom('import_progress').select('line').executeTakeFirstOrThrow();
    expect(Number(row.line)).toBe(3);
  });

  it('stores the status a spelling means', async () => {
    const lines = [
      JSON.stringify({ type: 'booking', id: 1, data: booking({ status: 'cancelled', customer: null }) }),
      JSON.stringify({
        type: 'payment', id: 2, data: { booking_id: 1, status: 'settlement', amount: '1.00', currency: 'EUR' },
      }),
    ];
    await importFile(wp.core, tempFile('spellings.ndjson', lines.join('\n')));
    const booked = await wp.core.db.selectFrom('bookings').select(['status', 'data']).executeTakeFirstOrThrow();
    const paid = await wp.core.db.selectFrom('payments').select(['status', 'data']).executeTakeFirstOrThrow();
    expect([booked.status, JSON.parse(booked.data).status]).toEqual(['canceled', 'canceled']);
    expect([paid.status, JSON.parse(paid.data).status]).toEqual(['completed', 'completed']);
  });

  it('refuses a missing file with a clear message', async () => {
    await expect(importFile(wp.core, '/nonexistent/dir/data.ndjson'))
      .rejects.toMatchObject({ status: 400, code: 'import_file_unreadable',
      message: expect.stringContaining('ENOENT') });
  });
});
