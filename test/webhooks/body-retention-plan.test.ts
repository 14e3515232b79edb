// Blanking old payloads and responses costs what it blanks, not the log's size, on both databases: each batch is a
// range of delivery_attempts' primary key (from the last run's mark), never a scan of the table, and its update
// finds its rows by that key. 20,000 attempts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type CompiledQuery } from 'kysely';
import { DIALECTS } from '../helpers/db.js';
import { pgPlanNodes, sqlitePlan } from '../helpers/plans.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { blankBodies, bodyBatch } from '../../src/webhooks/retention.js';

const ATTEMPTS = 20_000;

describe.each(DIALECTS)('body retention plan on %s', (dialect) => {
  let wp: Waypost;

  beforeAll(async () => {
    wp = await testWaypost({ dialect });
    const now = new Date().toISOString();
    const series = sql`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${ATTEMPTS})`;
    // Ids as the worker makes them: `att_` + 12 hex digits of time + 16 more, in time order.
    await sql`${series} INSERT INTO delivery_attempts (id, delivery_id, attempt, started_at, duration_ms, request_url,
        request_headers, request_body, response_status, response_headers, response_body, success)
      SELECT 'att_0193' || substr('00000000' || i, length('00000000' || i) - 7, 8) || '0000000000000000', 'dlv_' || i,
        1, ${now}, 5,
        'https://example.com', '{}', '{"data":{}}', 200, '{}', 'ok', 1 FROM s`.execute(wp.core.db);
    if (dialect === 'postgres') await sql`ANALYZE delivery_attempts`.execute(wp.core.db);
  }, 120_000);

  afterAll(async () => {
    await wp?.close();
  });

  const explain = async (statement: CompiledQuery): Promise<string[]> => {
    if (dialect === 'sqlite') return sqlitePlan(wp, statement);
    return (await pgPlanNodes(wp, statement)).filter((p) => p['Relation Name'] === 'delivery_attempts')
      .map((p) => `${p['Node Type']} ${p['Index Name'] ?? ''}`);
  };

  it('reads the next batch through the primary key, from the mark, in order (no sort, no scan)', async () => {
    const from = 'att_019300010000';
    const batch = bodyBatch(wp.core.db, from, 'att_0193000200000000000000000000');
    const plan = await explain(batch.compile());
    if (dialect === 'sqlite') {
      expect(plan).toEqual([expect.stringMatching(
        /^SEARCH delivery_attempts USING COVERING INDEX sqlite_autoindex_delivery_attempts_1 \(id>\? AND id<\?\)$/)]);
    } else {
      expect(plan).toEqual(['Index Only Scan delivery_attempts_pkey']);
    }
    const ids = (await batch.execute()).map((r) => r.id);
    expect(ids).toHaveLength(500);
    expect(ids[0] > from && ids.every((id, i) => i === 0 || id > ids[i - 1])).toBe(true);
  });

  it('blanks the batch through the primary key', async () => {
    const ids = (await bodyBatch(wp.core.db, 'att_019300010000', 'att_1').execute()).map((r) => r.id);
    const update = blankBodies(wp.core.db, 'response', 'att_019300010000', ids.at(-1)!);
    const plan = await explain(update.compile());
    if (dialect === 'sqlite') {
      expect(plan).toEqual([expect.stringMatching(
        /^SEARCH delivery_attempts USING INDEX sqlite_autoindex_delivery_attempts_1 \(id>\? AND id<\?\)$/)]);
    } else {
      const reads = plan.filter((p) => !p.startsWith('ModifyTable'));
      expect(reads.length, plan.join('\n')).toBeGreaterThan(0);
      expect(reads.every((p) => /^(Index|Index Only|Bitmap Heap) Scan/.test(p)), plan.join('\n')).toBe(true);
    }
  });
});
