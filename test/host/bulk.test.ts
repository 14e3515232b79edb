// The importer's batch writer (src/host/bulk.ts) must store exactly what the one-at-a-time write path stores:
// the same sequence of lines goes through importFile into one database and through putRecord, line by line, into
// another, and every table (records, search index, trip links, maintained totals) and every API answer must match.
// The sequence covers what a batch has to get right: new, changed and repeated records, duplicates inside one
// batch, embedded customers by id (known, unknown), by e-mail (stored, created earlier in the same batch) and new
// (an id from Waypost's own range), a payment moving to another booking, a booking changing trips and status, a
// legacy booking, and batches that split all of that at odd places.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { DIALECTS } from '../helpers/db.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { importFile } from '../../src/host/import.js';
import { putRecord } from '../../src/host/write.js';
import { IMPORT_TYPES } from '../../src/host/import.js';
import { manualClock } from '../helpers/clock.js';

const booking = (over: Record<string, unknown> = {}) => ({
  status: 'booked', currency: 'EUR', total_amount: '100.00', paid_amount: '0.00',
  customer: { id: 3, email: 'ana@example.com', first_name: 'Ana' },
  trips: [{ trip_id: 7, title: 'Douro', travellers: 1 }],
  engine_version: '6.8.0', cart_version: '4.1', ...over,
});
const payment = (bookingId: number, status = 'completed') =>
  ({ booking_id: bookingId, status, amount: '10.00', currency: 'EUR', gateway: 'stripe' });

const LINES: Array<[string, number, Record<string, unknown>]> = [
  ['trip', 7, { title: 'Douro Valley', destinations: ['Portugal'] }],
  ['trip', 8, { title: 'Alentejo', status: 'draft' }],
  ['customer', 3, { email: 'ana@example.com', first_name: 'Ana', last_name: 'Silva' }],
  ['booking', 1, booking()],
  ['booking', 2, booking({ customer: { id: 4, email: 'new4@example.com', first_name: 'Neo' } })],
  ['booking', 3, booking({ customer: { email: 'ANA@example.com' } })],
  ['booking', 4, booking({ customer: { email: 'fresh@example.com', first_name: 'Fresh' } })],
  ['booking', 5, booking({ customer: { email: 'fresh@example.com' }, status: 'pending' })],
  ['payment', 1, payment(1)],
  ['payment', 2, payment(2, 'pending')],
  ['booking', 1, booking({ status: 'completed', trips: [{ trip_id: 8, title: 'Alentejo' }] })],
  ['booking', 6, booking({ engine_version: '6.2.0' })],
  ['payment', 2, payment(1, 'refunded')],
  ['customer', 3, { email: 'ana@example.com', first_name: 'Ana', last_name: 'Silva' }],
  ['booking', 7, booking({ customer: { email: 'later@example.com' } })],
  ['customer', 9, { email: 'later@example.com', first_name: 'Late' }],
  ['booking', 8, booking({ customer: { email: 'later@example.com' }, trips: [{ trip_id: 7 }, { trip_id: 8 }] })],
  ['booking', 2, booking({ customer: { id: 4, email: 'new4@example.com', first_name: 'Neo' }, status: 'canceled' })],
  ['enquiry', 1, { full_name: 'Bo Berg', email: 'bo@example.com', trip: { id: 7 } }],
  ['review', 1, { trip_id: 7, author_name: 'Bo', rating: 5 }],
  ['booking', 9, booking({ created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-02T00:00:00Z' })],
  ['booking', 9, booking({ created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-02T00:00:00Z' })],
];

const TABLES = ['trips', 'customers', 'bookings', 'payments', 'enquiries', 'reviews', 'booking_trips', 'record_counts'];

async function snapshot(wp: Waypost): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    // A total that went up and back down within one batch leaves no row; 0 and no row are the same total.
    const { rows } = table === 'record_counts'
      ? await sql`SELECT * FROM record_counts WHERE total <> 0`.execute(wp.core.db)
      : await sql`SELECT * FROM ${sql.table(table)}`.execute(wp.core.db);
    out[table] = (rows as Array<Record<string, unknown>>)
      .map((r) => JSON.stringify(Object.fromEntries(Object.entries(r)
      .map(([k, v]) => [k, typeof v === 'bigint' || typeof v === 'number' ? Number(v) : v])))).sort();
  }
  if (wp.core.store.dialect === 'sqlite') {
    for (const table of ['bookings', 'customers', 'payments', 'trips']) {
      // The search index answers the same searches.
      for (const term of ['ana', 'fresh', 'douro', 'alentejo', 'stripe', 'later', 'canceled']) {
        const fts = sql.table(`${table}_fts`);
        const { rows } = await sql`SELECT rowid AS id FROM ${fts} WHERE search_text MATCH ${`"${term}"`}`
          .execute(wp.core.db);
        out[`${table}_fts:${term}`] = (rows as Array<{ id: number }>).map((r) => Number(r.id)).sort();
      }
    }
  }
  return out;
}

describe.each(DIALECTS)('bulk import writes what putRecord writes, on %s', (dialect) => {
  const open: Waypost[] = [];
  afterEach(async () => {
    for (const wp of open.splice(0)) await wp.close();
  });

  // Bulk load (bulk-load.ts): the search index is not written per batch but built from the records at the end.
  const runs: Array<[number, boolean]> = [
    [1, false], [4, false], [7, false], [1000, false], [1, true], [7, true], [1000, true],
  ];
  for (const [batchSize, bulkLoad] of runs) {
    it(`batches of ${batchSize}${bulkLoad ? ', bulk load' : ''}`, async () => {
      const clock = () => manualClock(Date.parse('2026-03-01T10:00:00Z'));
      const viaImport = await testWaypost({ dialect, clock: clock() });
      const oneByOne = await testWaypost({ dialect, clock: clock() });
      open.push(viaImport, oneByOne);
      const path = join(mkdtempSync(join(tmpdir(), 'waypost-bulk-')), 'lines.ndjson');
      writeFileSync(path, LINES.map(([type, id, data]) => JSON.stringify({ type, id, data })).join('\n'));
      const summary = await importFile(viaImport.core, path, { batchSize, bulkLoad });
      expect(summary.skipped, JSON.stringify(summary.errors)).toBe(0);
      const putAll = async () => {
        let created = 0;
        let changed = 0;
        for (const [type, id, data] of LINES) {
          const r = await putRecord(oneByOne.core, IMPORT_TYPES[type], id, data, { events: false });
          if (r.created) created++;
          else if (r.changed) changed++;
        }
        return { created, changed };
      };
      expect({ created: summary.created, changed: summary.changed }).toEqual(await putAll());
      expect(await snapshot(viaImport)).toEqual(await snapshot(oneByOne));
      // A second run of the same lines over what they left: the same again.
      const again = await importFile(viaImport.core, path, { batchSize, bulkLoad, restart: true });
      expect({ created: again.created, changed: again.changed }).toEqual(await putAll());
      expect(again.created).toBe(0);
      expect(await snapshot(viaImport)).toEqual(await snapshot(oneByOne));
    });
  }
});
