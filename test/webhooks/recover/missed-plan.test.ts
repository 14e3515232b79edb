// A recover reads the events missed while a webhook was off a page at a time: per subscribed type, an index walk on
// events (type, id) from the page's start that stops at the page size (no sort, no whole-table read), and the check
// for deliveries already made looks each event up by deliveries (event_id). At 20,000 events, on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Compilable } from 'kysely';
import { DIALECTS } from '../../helpers/db.js';
import { pgPlanNodes, sqlitePlan, type PlanNode } from '../../helpers/plans.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { deliveredOf, eventsOfTypeBetween } from '../../../src/webhooks/recover/missed.js';

describe.each(DIALECTS)('missed events plan on %s', (dialect) => {
  let wp: Waypost;

  beforeAll(async () => {
    wp = await testWaypost({ dialect });
    const now = new Date().toISOString();
    // 20,000 events of three types (reviews rare, bookings common), each with a delivery to another webhook.
    await sql`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 20000)
      INSERT INTO events (id, type, resource, record_id, data, test, created_at)
      SELECT 'evt_' || (100000 + i), CASE WHEN i % 100 = 0 THEN 'review.created' WHEN i % 3 = 0
        THEN 'booking.updated' ELSE 'booking.created' END, 'bookings', i, '{}', 0, ${now} FROM s`.execute(wp.core.db);
    await sql`INSERT INTO deliveries (id, webhook_id, event_id, event_type, status, attempts, created_at, updated_at)
      SELECT 'dlv_' || substr(id, 5), 'wh_other', id, type, 'succeeded', 1, created_at, created_at FROM events`
      .execute(wp.core.db);
    await sql`ANALYZE`.execute(wp.core.db);
  }, 60_000);

  afterAll(async () => {
    await wp?.close();
  });

  async function plan(query: Compilable): Promise<string[] | PlanNode[]> {
    const statement = query.compile();
    return dialect === 'sqlite' ? sqlitePlan(wp, statement) : pgPlanNodes(wp, statement);
  }

  it('walks events_type_id from the page\'s start and stops at the page, for a common and a rare type', async () => {
    // A full page each time (150 reviews and 10,000 bookings are after the start): the walk stops at the page.
    for (const [type, limit] of [['booking.created', 500], ['review.created', 100]] as const) {
      const page = eventsOfTypeBetween(wp.core.db, type, 'evt_', 'evt_~', 'evt_105000', limit);
      expect((await page.execute()).length).toBe(limit);
      const found = await plan(page);
      if (dialect === 'sqlite') {
        const lines = (found as string[]).join('\n');
        expect(lines).toMatch(/SEARCH events USING INDEX events_type_id \(type=\? AND id>\? AND id<\?\)/);
        expect(lines).not.toMatch(/TEMP B-TREE|SCAN events/);
        continue;
      }
      const types = (found as PlanNode[]).map((n) => n['Node Type']);
      expect(types, JSON.stringify(found)).not.toContain('Sort');
      expect(types, JSON.stringify(found)).not.toContain('Seq Scan');
      expect(types[0], JSON.stringify(found)).toBe('Limit');
      const index = type === 'review.created' ? ['events_type_id'] : ['events_type_id', 'events_pkey'];
      expect((found as PlanNode[]).some((n) => index.includes(n['Index Name'] ?? '')), JSON.stringify(found))
        .toBe(true);
    }
  });

  it('looks up a page\'s deliveries by event id', async () => {
    const ids = Array.from({ length: 500 }, (_, i) => `evt_${105001 + i}`);
    const query = deliveredOf(wp.core.db, 'wh_other', ids);
    expect(await query.execute()).toHaveLength(500);
    const found = await plan(query);
    if (dialect === 'sqlite') {
      expect((found as string[]).join('\n')).toMatch(/SEARCH deliveries USING INDEX deliveries_event \(event_id=\?\)/);
      return;
    }
    const names = (found as PlanNode[]).map((n) => n['Index Name']);
    expect(names, JSON.stringify(found)).toContain('deliveries_event');
    expect((found as PlanNode[]).map((n) => n['Node Type']), JSON.stringify(found)).not.toContain('Seq Scan');
  });
});
