// The console's Events view costs O(page) at any size: its list is the feed's newest-first walk of one index (the
// primary key, events_type_id, events_record_id, or one bounded walk per type merged), and one event's outcomes read
// its deliveries through deliveries_event. Plans checked on both databases, sorts and scans priced out on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DIALECTS } from '../helpers/db.js';
import { pgPlanText, sqlitePlan } from '../helpers/plans.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { deliveriesOfEvent, listFilter } from '../../src/feed/admin.js';
import { pageQuery } from '../../src/feed/read.js';
import { eventIdAt } from '../../src/webhooks/retention.js';

/** The seeded ids: an hour ago, then a 16-digit counter (real ids' shape, inside the retention). */
const PREFIX = eventIdAt(Date.now() - 3_600_000);

const LISTS: Array<[string, Record<string, string>, RegExp]> = [
  ['everything', {}, /events_pkey|sqlite_autoindex_events|PRIMARY KEY/],
  ['one type', { type: 'review.created' }, /events_type_id/],
  ['booking.*', { type: 'booking.*' }, /events_type_id/],
  ['a record', { record: 'booking:42' }, /events_record_id/],
  ['a record and booking.*', { record: 'booking:42', type: 'booking.*' }, /events_record_id/],
  ['the next page', { type: 'review.created', after: `${PREFIX}0000000000010000` }, /events_type_id/],
];

describe.each(DIALECTS)('events view query plans on %s', (dialect) => {
  let wp: Waypost;
  beforeAll(async () => {
    wp = await testWaypost({ dialect });
    // 20,000 events (20 reviews) over 2,000 records, each delivered once: a scan would read most of either table.
    const counter = dialect === 'sqlite' ? sql`printf('%016d', i)` : sql`lpad(i::text, 16, '0')`;
    const series = sql`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 20000)`;
    await sql`${series} INSERT INTO events (id, type, resource, record_id, data, test, created_at)
      SELECT ${PREFIX} || ${counter}, CASE WHEN i % 1000 = 0 THEN 'review.created'
        WHEN i % 3 = 0 THEN 'booking.created' WHEN i % 3 = 1 THEN 'booking.updated' ELSE 'enquiry.created' END,
        'bookings', i % 2000, '{}', 0, '2026-01-01T00:00:00Z' FROM s`.execute(wp.core.db);
    await sql`${series} INSERT INTO deliveries (id, webhook_id, event_id, event_type, status, attempts,
        created_at, updated_at)
      SELECT 'dlv_' || i, 'wh_1', ${PREFIX} || ${counter}, 'booking.created', 'succeeded', 1,
        '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z' FROM s`.execute(wp.core.db);
    await sql`ANALYZE`.execute(wp.core.db);
  }, 60_000);
  afterAll(async () => wp?.close());

  async function plan(query: { sql: string; parameters: readonly unknown[] }): Promise<string> {
    return dialect === 'sqlite' ? sqlitePlan(wp, query).join('\n') : pgPlanText(wp, query);
  }

  for (const [name, query, index] of LISTS) {
    it(`the list, ${name}: walks ${index.source.split('|')[0]} newest first`, async () => {
      const filter = listFilter(wp.core, query);
      expect(filter.order).toBe('desc');
      const text = await plan(pageQuery(wp.core.db, filter, 26).compile());
      expect(text, text).toMatch(index);
      const merged = (filter.types?.length ?? 0) > 1 && !filter.record;
      if (dialect === 'sqlite') {
        expect(text).not.toMatch(/^SCAN events(?! USING)/m);
        if (!merged) expect(text).not.toMatch(/TEMP B-TREE/);
      } else {
        expect(text).not.toMatch(/Seq Scan|Bitmap/);
        if (!merged) expect(text).not.toMatch(/\bSort\b/);
      }
    });
  }

  it('one event\'s deliveries: read through deliveries_event', async () => {
    const text = await plan(deliveriesOfEvent(wp.core.db, `${PREFIX}0000000000000042`).compile());
    expect(text).toMatch(/deliveries_event/);
    expect(text).not.toMatch(/Seq Scan|^SCAN deliveries(?! USING)/m);
  });
});
