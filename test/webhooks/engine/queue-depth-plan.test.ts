// The queue gauges' scrape-time statement reads a bounded part of deliveries_due, on both databases: the depth
// counts at most QUEUE_DEPTH_CAP pending entries (it counted every pending delivery at every scrape) and the oldest
// due time is the index's first pending entry; neither reads the whole table nor sorts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { QUEUE_DEPTH_CAP, queueFigures, queueStatement } from '../../../src/webhooks/delivery/metrics.js';
import { addWebhook } from './fixtures.js';

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; Plans?: PlanNode[] }
const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

describe.each(DIALECTS)('queue gauges plan on %s', (dialect) => {
  let wp: Waypost;

  beforeAll(async () => {
    wp = await testWaypost({ dialect });
    const webhookId = (await addWebhook(wp.core, 'https://example.com/hook')).id;
    const now = new Date().toISOString();
    const series = sql`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 20000)`;
    await sql`${series} INSERT INTO events (id, type, resource, record_id, data, test, created_at)
      SELECT 'evt_' || i, 'enquiry.created', 'enquiries', i, '{}', 0, ${now} FROM s`.execute(wp.core.db);
    // 20,000 deliveries: 19,900 finished, 100 pending (the oldest due: 119901).
    await sql`${series} INSERT INTO deliveries (id, webhook_id, event_id, event_type, status, attempts,
        next_attempt_at, created_at, updated_at)
      SELECT 'dlv_' || (100000 + i), ${webhookId}, 'evt_' || i, 'enquiry.created',
        CASE WHEN i > 19900 THEN 'pending' ELSE 'succeeded' END, 0, CASE WHEN i > 19900 THEN 100000 + i END,
        ${now}, ${now}
      FROM s`.execute(wp.core.db);
    await sql`ANALYZE`.execute(wp.core.db);
  }, 60_000);

  afterAll(async () => {
    await wp?.close();
  });

  it('counts pending deliveries up to the cap and finds the oldest due one', async () => {
    expect(QUEUE_DEPTH_CAP).toBe(100_000);
    expect(await queueFigures(wp.core)).toEqual({ depth: 100, oldestDueAt: 119_901 });
    expect(await queueFigures(wp.core, 30)).toEqual({ depth: 30, oldestDueAt: 119_901 }); // saturates at the cap
  });

  it('reads deliveries_due by index only, without a whole-table read or a sort', async () => {
    const statement = queueStatement(wp.core.db).compile();
    if (dialect === 'sqlite') {
      const lines = (wp.core.store.sqlite!.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
        .all(...statement.parameters as unknown[]) as Array<{ detail: string }>).map((r) => r.detail);
      const deliveries = lines.filter((l) => /\bdeliveries\b/.test(l));
      expect(deliveries, lines.join('\n')).toHaveLength(2);
      for (const line of deliveries) expect(line).toMatch(/^SEARCH deliveries USING COVERING INDEX deliveries_due/);
      expect(lines.join('\n')).not.toMatch(/TEMP B-TREE/);
      return;
    }
    const { rows } = await wp.core.db.executeQuery(
      CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${statement.sql}`, [...statement.parameters]));
    const plan = nodes(((rows[0] as Record<string, unknown>)['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0].Plan);
    const scans = plan.filter((n) => n['Relation Name'] === 'deliveries').map((n) => n['Node Type']);
    expect(scans, JSON.stringify(plan)).toHaveLength(2);
    for (const scan of scans) expect(['Index Scan', 'Index Only Scan']).toContain(scan);
    const types = plan.map((n) => n['Node Type']);
    expect(types).not.toContain('Sort');
    expect(types.filter((t) => t === 'Limit')).toHaveLength(2); // both reads stop early
  });
});
