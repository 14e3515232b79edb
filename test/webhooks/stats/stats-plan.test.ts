// The chart endpoints read counters, not the delivery log: each of their queries is one range of a counter table's
// primary key (webhook_stats, api_usage_hours), on both databases, and none touches deliveries or their attempts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { healthRows, rangeSums } from '../../../src/webhooks/stats/read.js';
import { planRange } from '../../../src/webhooks/stats/range.js';
import { hourRows } from '../../../src/api/usage-series.js';

describe.each(DIALECTS)('chart query plans on %s', (dialect) => {
  let wp: Waypost;
  beforeAll(async () => { wp = await testWaypost({ dialect }); });
  afterAll(async () => wp?.close());

  async function plan(query: { sql: string; parameters: readonly unknown[] }): Promise<string> {
    if (dialect === 'sqlite') {
      const rows = wp.core.store.sqlite!.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...query.parameters);
      return (rows as Array<{ detail: string }>).map((r) => r.detail).join('\n');
    }
    return wp.core.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      await sql`SET LOCAL enable_bitmapscan = off`.execute(trx);
      const { rows } = await trx.executeQuery(CompiledQuery.raw(`EXPLAIN ${query.sql}`, [...query.parameters]));
      return (rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']).join('\n');
    });
  }

  const now = Date.parse('2027-03-01T09:00:00Z');
  const cases = {
    'a webhook chart (minute rows)': () => rangeSums(wp.core, ['wh_1'], planRange('24h', now), 'm').compile(),
    'a webhook chart (hour rows)': () => rangeSums(wp.core, ['wh_1'], planRange('30d', now), 'h').compile(),
    'the health of every webhook': () =>
      rangeSums(wp.core, ['wh_1', 'wh_2', 'wh_3'], planRange('24h', now), 'h', false).compile(),
    'the health rows': () => healthRows(wp.core, ['wh_1', 'wh_2']).compile(),
    'a key\'s calls': () => hourRows(wp.core, 'key_1', now - 86_400_000, now).compile(),
  };

  for (const [name, query] of Object.entries(cases)) {
    it(`reads ${name} by primary key range`, async () => {
      const text = await plan(query());
      expect(text).not.toMatch(/deliver/i);
      if (dialect === 'sqlite') {
        expect(text).toMatch(/SEARCH (webhook_stats|api_usage_hours) USING (PRIMARY KEY|INDEX sqlite_autoindex)/);
        // Grouping sorts the range's rows (at most 1,440 minutes x 3 outcomes a webhook), never more.
        expect(text).not.toMatch(/SCAN|TEMP B-TREE FOR ORDER BY/);
      } else {
        expect(text).toMatch(/Index (Only )?Scan using (webhook_stats_pk|api_usage_hours_pk)/);
        expect(text).not.toMatch(/Seq Scan/);
      }
    });
  }
});
