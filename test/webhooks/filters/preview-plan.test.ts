// The filter preview reads the last 50 events of each type by an index walk that stops at 50 rows (events (type, id);
// on PostgreSQL a common type may be walked on the primary key), on both databases: no whole-table read and no sort.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { lastEventsOfType } from '../../../src/webhooks/filters/preview.js';

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] }
const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

describe.each(DIALECTS)('filter preview plan on %s', (dialect) => {
  let wp: Waypost;

  beforeAll(async () => {
    wp = await testWaypost({ dialect });
    const now = new Date().toISOString();
    // 20,000 events of three types: reviews rare (1%), bookings common.
    await sql`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 20000)
      INSERT INTO events (id, type, resource, record_id, data, test, created_at)
      SELECT 'evt_' || (100000 + i), CASE WHEN i % 100 = 0 THEN 'review.created' WHEN i % 3 = 0
        THEN 'booking.updated' ELSE 'booking.created' END, 'bookings', i, '{}', 0, ${now} FROM s`.execute(wp.core.db);
    await sql`ANALYZE`.execute(wp.core.db);
  }, 60_000);

  afterAll(async () => {
    await wp?.close();
  });

  it('walks events_type_id backwards for each type, without a sort or a whole-table read', async () => {
    for (const type of ['booking.created', 'review.created']) {
      const statement = lastEventsOfType(wp.core.db, type).compile();
      expect((await lastEventsOfType(wp.core.db, type).execute())).toHaveLength(50);
      if (dialect === 'sqlite') {
        const lines = (wp.core.store.sqlite!.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
          .all(...statement.parameters as unknown[]) as Array<{ detail: string }>).map((r) => r.detail);
        expect(lines.join('\n')).toMatch(/SEARCH events USING INDEX events_type_id \(type=\?\)/);
        expect(lines.join('\n')).not.toMatch(/TEMP B-TREE|SCAN events/);
        continue;
      }
      const { rows } = await wp.core.db.executeQuery(
        CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${statement.sql}`, [...statement.parameters]));
      const plan = nodes(((rows[0] as Record<string, unknown>)['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0].Plan);
      const types = plan.map((n) => n['Node Type']);
      expect(types, JSON.stringify(plan)).not.toContain('Sort');
      expect(types, JSON.stringify(plan)).not.toContain('Seq Scan');
      expect(types[0], JSON.stringify(plan)).toBe('Limit');
      // A common type may be walked on the primary key (the 50 come soon); a rare one is found by its index.
      const index = type === 'review.created' ? ['events_type_id'] : ['events_type_id', 'events_pkey'];
      expect(plan.some((n) => index.includes(n['Index Name'] ?? '')), JSON.stringify(plan)).toBe(true);
    }
  });
});
