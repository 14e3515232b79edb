// A delivery-log search by e-mail, name or trip reads only the deliveries of the records it found, on both databases:
// events through events_record_id, their deliveries through deliveries_event, never a walk of the log (which would
// cost O(deliveries) for a traveller with few), alone or with the other filters. 80,000 deliveries of 40,000 bookings;
// the search reaches the most records it can (RECORDS_PER_KIND of each kind).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { DIALECTS } from '../helpers/db.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Core } from '../../src/core.js';
import type { Waypost } from '../../src/sdk.js';
import { listDeliveries, listStatements, type DeliveryQuery } from '../../src/webhooks/delivery-log.js';
import { RECORDS_PER_KIND } from '../../src/webhooks/log-search.js';
import { addWebhook } from './engine/fixtures.js';

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] }
const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];
const BOOKINGS = 40_000;
/** The reads allowed: the found records' events, their deliveries, or a row by its primary key. */
const SQLITE_READS = new RegExp('^SEARCH (deliveries|events) USING .*INDEX '
  + '(deliveries_event|events_record_id|sqlite_autoindex_events_1|sqlite_autoindex_deliveries_1)');
const POSTGRES_READS = new RegExp('^(Index|Bitmap Index|Index Only) Scan (deliveries|events) '
  + '(deliveries_event|events_record_id|events_pkey|deliveries_pkey)');

describe.each(DIALECTS)('delivery log text search plan on %s', (dialect) => {
  let wp: Waypost;
  let core: Core;
  let hooks: string[];

  beforeAll(async () => {
    wp = await testWaypost({ dialect });
    hooks = [];
    for (const i of [0, 1]) hooks.push((await addWebhook(wp.core, `https://example.com/h${i}`)).id);
    const now = new Date().toISOString();
    const series = sql`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${BOOKINGS})`;
    await sql`${series} INSERT INTO events (id, type, resource, record_id, data, test, created_at)
      SELECT 'evt_' || (100000 + i), 'booking.created', 'bookings', i, '{}', 0, ${now} FROM s`.execute(wp.core.db);
    // Two webhooks: 80,000 deliveries, ids in event order.
    for (const [n, hook] of hooks.entries()) {
      await sql`${series} INSERT INTO deliveries (id, webhook_id, event_id, event_type, status, attempts,
          created_at, updated_at)
        SELECT 'dlv_' || (100000 + i) || ${String(n)}, ${hook}, 'evt_' || (100000 + i), 'booking.created',
          CASE WHEN i % 5 = 0 THEN 'failed' ELSE 'succeeded' END, 1, ${now}, ${now}
        FROM s`.execute(wp.core.db);
    }
    if (dialect === 'postgres') await sql`ANALYZE`.execute(wp.core.db);
    // The records the search found: the most it reaches, spread over the log (the records' own search has its own
    // plan tests: test/api/list-plans.test.ts).
    const spread = Array.from({ length: RECORDS_PER_KIND }, (_, i) => 7 + i * 397);
    core = {
      ...wp.core, findRecordIds: async (resource) => ({ ids: resource === 'bookings' ? spread : [], more: true }),
    };
  }, 120_000);

  afterAll(async () => {
    await wp?.close();
  });

  const explain = async (statement: CompiledQuery): Promise<{ text: string; scans: string[] }> => {
    if (dialect === 'sqlite') {
      const lines = (wp.core.store.sqlite!.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
        .all(...statement.parameters as unknown[]) as Array<{ detail: string }>).map((r) => r.detail);
      return { text: lines.join('\n'), scans: lines.filter((l) => /\b(deliveries|events)\b/.test(l)) };
    }
    const { rows } = await wp.core.db.executeQuery(
      CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${statement.sql}`, [...statement.parameters]));
    const plan = nodes(((rows[0] as Record<string, unknown>)['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0].Plan);
    return {
      text: JSON.stringify(plan),
      scans: plan.filter((p) => p['Relation Name'] === 'deliveries' || p['Relation Name'] === 'events')
        .map((p) => `${p['Node Type']} ${p['Relation Name']} ${p['Index Name'] ?? ''}`),
    };
  };

  const cases: Array<[string, DeliveryQuery]> = [
    ['alone', {}], ['one webhook', { webhook_id: 'HOOK' }], ['failed', { status: 'failed' }],
    ['one webhook, failed', { webhook_id: 'HOOK', status: 'failed' }], ['page 3', { page: 3 }],
    ['since a time', { since: '2020-01-01T00:00:00Z' }],
    ['a record id, one webhook, failed', { q: 'booking 1042', webhook_id: 'HOOK', status: 'failed' }],
  ];

  it.each(cases)('reads the found records\' deliveries by index (%s)', async (_name, filters) => {
    const query = { q: 'ana.silva@example.com', ...filters, webhook_id: filters.webhook_id && hooks[1], perpage: 25 };
    const { statements } = await listStatements(core, query);
    for (const statement of [statements!.ids, statements!.count]) {
      const { text, scans } = await explain(statement);
      expect(scans.length, text).toBeGreaterThan(0);
      for (const scan of scans) {
        if (dialect === 'sqlite') {
          expect(scan, text).toMatch(SQLITE_READS);
        } else {
          expect(scan, text).toMatch(POSTGRES_READS);
        }
      }
    }
  });

  it('lists those deliveries newest first and counts them', async () => {
    const page = await listDeliveries(core, { q: 'ana.silva@example.com', perpage: 25, webhook_id: hooks[1] });
    expect(page.total).toBe(RECORDS_PER_KIND);
    expect(page.items[0].record_id).toBe(7 + (RECORDS_PER_KIND - 1) * 397);
    expect(page.search).toEqual({ records: RECORDS_PER_KIND, more: true });
  });
});
