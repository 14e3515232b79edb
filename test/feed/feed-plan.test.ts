// The feed is O(page) at any size: every shape (no filter, one type, several types, a record, with bounds, both
// orders) walks an index in id order, never the whole table; several types merge one bounded walk per type (at most
// perpage + 1 rows each), the only rows ever sorted. Plans checked on both databases, with sorts, sequential and
// bitmap scans priced out on PostgreSQL, as test/api/list-plans.test.ts does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { DIALECTS } from '../helpers/db.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { pageQuery } from '../../src/feed/read.js';
import type { FeedFilter } from '../../src/feed/params.js';

const SHAPES: Array<[string, Partial<FeedFilter>]> = [
  ['everything', {}],
  ['one rare type', { types: ['review.created'] }],
  ['several rare types', { types: ['review.created', 'booking.canceled', 'customer.created'] }],
  ['a record', { record: { resource: 'bookings', id: 42 } }],
  ['a record and types', { record: { resource: 'bookings', id: 42 }, types: ['booking.updated', 'booking.canceled'] }],
];

describe.each(DIALECTS)('event feed query plans on %s', (dialect) => {
  let wp: Waypost;
  beforeAll(async () => {
    wp = await testWaypost({ dialect });
    // 20,000 events over the types (20 of review.created) and 2,000 records: walking the primary key past the rows of
    // other types to find a rare type's would read most of the table.
    const series = sql`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 20000)`;
    await sql`${series} INSERT INTO events (id, type, resource, record_id, data, test, created_at)
      SELECT 'evt_' || (100000 + i), CASE WHEN i % 1000 = 0 THEN 'review.created'
        WHEN i % 3 = 0 THEN 'booking.created' WHEN i % 3 = 1 THEN 'booking.updated' ELSE 'enquiry.created' END,
        'bookings', i % 2000, '{}', 0, '2026-01-01T00:00:00Z' FROM s`.execute(wp.core.db);
    await sql`ANALYZE`.execute(wp.core.db);
  }, 60_000);
  afterAll(async () => wp?.close());

  async function plan(query: { sql: string; parameters: readonly unknown[] }): Promise<string[]> {
    if (dialect === 'sqlite') {
      return (wp.core.store.sqlite!.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...query.parameters as unknown[]) as
        Array<{ detail: string }>).map((r) => r.detail);
    }
    return wp.core.db.transaction().execute(async (trx) => {
      for (const off of ['seqscan', 'sort', 'bitmapscan', 'hashjoin', 'material']) {
        await sql.raw(`SET LOCAL enable_${off} = off`).execute(trx);
      }
      const { rows } = await trx.executeQuery(CompiledQuery.raw(`EXPLAIN ${query.sql}`, [...query.parameters]));
      return (rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']);
    });
  }

  for (const [name, shape] of SHAPES) {
    for (const order of ['asc', 'desc'] as const) {
      for (const bounds of [{ above: 'evt_0', below: null }, { above: 'evt_100500', below: 'evt_109000' }]) {
        it(`${name}, ${order}, ${bounds.below ? 'between two ids' : 'from the start'}: walks an index in order`,
          async () => {
          const filter: FeedFilter = { types: null, record: null, order, ...bounds, ...shape };
          const lines = await plan(pageQuery(wp.core.db, filter, 11).compile());
          const text = lines.join('\n');
          const merged = (filter.types?.length ?? 0) > 1 && !filter.record;
          if (dialect === 'sqlite') {
            expect(text).not.toMatch(/^SCAN events(?! USING)/m); // a walk of an index is "SCAN events USING …"
            expect(text).toMatch(/events_record_id|events_type_id|sqlite_autoindex_events|PRIMARY KEY/);
            // The merge of several types sorts its at most 11 rows per type, nothing else is ever sorted.
            if (!merged) expect(text).not.toMatch(/TEMP B-TREE/);
          } else {
            expect(text).not.toMatch(/Seq Scan|Bitmap/);
            if (!merged) expect(text).not.toMatch(/\bSort\b/);
            expect(text).toMatch(/Index (Only )?Scan( Backward)? using (events_pkey|events_type_id|events_record_id)/);
          }
          if (merged) expect(lines.filter((l) => /events_type_id/.test(l))).toHaveLength(filter.types!.length);
          if (filter.record) expect(text).toMatch(/events_record_id/);
          else if (filter.types?.length === 1) expect(text).toMatch(/events_type_id/);
        });
      }
    }
  }
});
