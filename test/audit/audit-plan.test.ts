// Every page of the audit log costs O(page) at any size: newest first through the primary key, or through the
// (filter, id) index of the filter given (migration 0031; action and door together, 0033), with since/until/after
// as bounds of the id order and no sort. Plans checked on both databases; scans and sorts priced out on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DIALECTS } from '../helpers/db.js';
import { pgPlanText, sqlitePlan } from '../helpers/plans.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { auditFilter, auditIdAt, auditPageQuery, type AuditQuery } from '../../src/audit/read.js';

const PREFIX = auditIdAt(Date.now() - 3_600_000);

const PAGES: Array<[string, AuditQuery, RegExp]> = [
  ['everything', {}, /audit_log_pkey|sqlite_autoindex_audit_log/],
  ['a time range', { since: '2026-01-01T00:00:00Z', until: '2026-12-01T00:00:00Z' },
    /audit_log_pkey|sqlite_autoindex_audit_log/],
  ['the next page', { after: `${PREFIX}0000000000010000` }, /audit_log_pkey|sqlite_autoindex_audit_log/],
  ['one action', { action: 'key.deleted' }, /audit_log_action_id/],
  ['one action, next page', { action: 'key.deleted', after: `${PREFIX}0000000000010000` }, /audit_log_action_id/],
  ['one door', { actor_type: 'host' }, /audit_log_actor_type_id/],
  ['one target', { target_id: 'wh_42' }, /audit_log_target_id/],
  ['one action by one door', { action: 'key.deleted', actor_type: 'host' }, /audit_log_action_actor_type_id/],
  ['one action by one door, next page',
    { action: 'webhook.updated', actor_type: 'host', after: `${PREFIX}0000000000010000` },
    /audit_log_action_actor_type_id/],
  // The planner may walk either index: PostgreSQL prices the rare action's shorter.
  ['one target and action', { target_id: 'wh_42', action: 'key.deleted' }, /audit_log_target_id|audit_log_action_id/],
  ['one target since', { target_id: 'wh_42', since: '2026-01-01T00:00:00Z' }, /audit_log_target_id/],
];

describe.each(DIALECTS)('audit log query plans on %s', (dialect) => {
  let wp: Waypost;
  beforeAll(async () => {
    wp = await testWaypost({ dialect });
    // 20,000 entries: a scan would read most of them.
    const counter = dialect === 'sqlite' ? sql`printf('%016d', i)` : sql`lpad(i::text, 16, '0')`;
    const series = sql`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 20000)`;
    await sql`${series} INSERT INTO audit_log (id, at, actor_type, actor, action, target_type, target_id)
      SELECT ${PREFIX} || ${counter}, '2026-01-01T00:00:00Z',
        CASE WHEN i % 100 = 0 THEN 'host' WHEN i % 2 = 0 THEN 'cli' ELSE 'admin' END, 'someone',
        CASE WHEN i % 1000 = 0 THEN 'key.deleted' ELSE 'webhook.updated' END, 'webhook', 'wh_' || (i % 2000)
      FROM s`.execute(wp.core.db);
    await sql`ANALYZE`.execute(wp.core.db);
  }, 60_000);
  afterAll(async () => wp?.close());

  async function plan(query: { sql: string; parameters: readonly unknown[] }): Promise<string> {
    return dialect === 'sqlite' ? sqlitePlan(wp, query).join('\n') : pgPlanText(wp, query);
  }

  for (const [name, query, index] of PAGES) {
    it(`${name}: walks ${index.source.split('|')[0]} newest first, without a sort`, async () => {
      const text = await plan(auditPageQuery(wp.core.db, auditFilter({ ...query, perpage: 25 })).compile());
      expect(text, text).toMatch(index);
      if (dialect === 'sqlite') {
        expect(text).not.toMatch(/^SCAN audit_log(?! USING)/m);
        expect(text).not.toMatch(/TEMP B-TREE/);
      } else {
        expect(text).not.toMatch(/Seq Scan|Bitmap|\bSort\b/);
      }
    });
  }
});
