// PostgreSQL's claim reads only what it leases: the due rows from deliveries_due and their rows by primary key,
// however many finished deliveries the table keeps (30 days of them by default). Written as `id IN (…)`, the update
// was planned as a hash join over a sequential scan of the whole table, every claim. The plan is taken as the worker
// runs it: on the queue's own connections, whose sessions turn sorts and sequential scans off. A named statement's
// generic plan is made once: made on a nearly empty table, the claim and the success batch read every row of
// deliveries each time (issue 31: p99 at 10 webhooks x 200 events/s went from 15 to 75-230 ms).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { claimStatement } from '../../../src/webhooks/delivery/queue/base.js';
import { deliveryQueue } from '../../../src/webhooks/delivery/queue/index.js';
import { successStatement } from '../../../src/webhooks/delivery/queue/postgres.js';
import { withValues } from '../../../src/store/prepared.js';
import { chainQuery, releaseQuery } from '../../../src/webhooks/delivery/order.js';
import { addWebhook } from './fixtures.js';

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] }

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

describe.runIf(DIALECTS.includes('postgres'))('delivery claim plan (postgres)', () => {
  let wp: Waypost;
  let webhookId: string;

  beforeAll(async () => {
    wp = await testWaypost({ dialect: 'postgres' });
    webhookId = (await addWebhook(wp.core, 'https://example.com/hook')).id;
    const now = new Date().toISOString();
    await sql`INSERT INTO events (id, type, resource, record_id, data, test, created_at)
      SELECT 'evt_' || i, 'enquiry.created', 'enquiries', i, '{}', 0, ${now} FROM generate_series(1, 20000) i`
      .execute(wp.core.db);
    // 20,000 deliveries: 19,900 finished long ago, 100 due now (the oldest due first: dlv_019901).
    await sql`INSERT INTO deliveries (id, webhook_id, event_id, event_type, status, attempts, next_attempt_at,
        created_at, updated_at)
      SELECT 'dlv_' || lpad(i::text, 6, '0'), ${webhookId}, 'evt_' || i, 'enquiry.created',
        CASE WHEN i > 19900 THEN 'pending' ELSE 'succeeded' END, 0, CASE WHEN i > 19900 THEN i END, ${now}, ${now}
      FROM generate_series(1, 20000) i`.execute(wp.core.db);
    await sql`ANALYZE deliveries`.execute(wp.core.db);
  }, 60_000);

  afterAll(async () => {
    await wp?.close();
  });

  it('finds the due rows by index and updates them by primary key, without reading the whole table', async () => {
    const statement = claimStatement(wp.core.db, { postgres: true })({
      owner: 'wrk_test', limit: 50, now: 100_000, leaseMs: 60_000, skipWebhooks: [],
    });
    const client = await wp.core.store.pg!.engine().connect();
    try {
      await client.query('BEGIN');
      const explain = `EXPLAIN (FORMAT JSON, ANALYZE) ${statement.sql}`;
      const { rows } = await client.query(explain, statement.parameters as unknown[]);
      await client.query('ROLLBACK');
      const plan = nodes((rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0].Plan);
      const scans = plan.filter((n) => n['Relation Name'] === 'deliveries').map((n) => n['Node Type']);
      expect(scans).not.toContain('Seq Scan');
      expect(scans).toContain('Index Scan');
      expect(plan.map((n) => n['Node Type'])).not.toContain('Sort');
    } finally {
      client.release();
    }
  });

  it('keeps a generic plan made on an empty table to index scans once the table has grown', async () => {
    const fresh = await testWaypost({ dialect: 'postgres' });
    const client = await fresh.core.store.pg!.engine().connect();
    try {
      const claim = claimStatement(fresh.core.db, { postgres: true })({
        owner: 'wrk_test', limit: 50, now: 100_000, leaseMs: 60_000, skipWebhooks: [],
      });
      // Numbered parameters ($1…) as the worker sends them; PREPARE so EXPLAIN EXECUTE shows the cached plan.
      await client.query('SET plan_cache_mode = force_generic_plan');
      await client.query(`PREPARE claim_generic AS ${claim.sql}`);
      const run = `EXECUTE claim_generic(${claim.parameters.map((p) => pgLiteral(p)).join(', ')})`;
      const success = withValues(successStatement(fresh.core.db).compile())({ now: '2027-01-01', attempts: '[]',
        counts: '[]' });
      await client.query(`PREPARE success_generic AS ${success.sql}`);
      const written = `EXECUTE success_generic(${success.parameters.map((p) => pgLiteral(p)).join(', ')})`;
      // The generic plans are made now, on an empty table, and kept.
      await client.query(run);
      await client.query(written);
      const hook = (await addWebhook(fresh.core, 'https://example.com/hook')).id;
      await sql`INSERT INTO deliveries (id, webhook_id, event_id, event_type, status, attempts, next_attempt_at,
          created_at, updated_at)
        SELECT 'dlv_' || lpad(i::text, 6, '0'), ${hook}, 'evt_' || i, 'enquiry.created', 'succeeded', 1, NULL,
          '2027-01-01', '2027-01-01' FROM generate_series(1, 20000) i`.execute(fresh.core.db);
      for (const statement of [run, written]) {
        const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${statement}`);
        const plan = nodes((rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0].Plan);
        const onDeliveries = plan.filter((n) => n['Relation Name'] === 'deliveries').map((n) => n['Node Type']);
        expect(onDeliveries.length, statement).toBeGreaterThan(0);
        expect(onDeliveries, statement).not.toContain('Seq Scan');
      }
    } finally {
      await client.query('DEALLOCATE ALL; RESET plan_cache_mode');
      client.release();
      await fresh.close();
    }
  });

  it('leases the due deliveries, oldest first, with their webhooks and events', async () => {
    const claimed = await deliveryQueue(wp.core).claim({
      owner: 'wrk_test', limit: 30, now: 100_000, leaseMs: 60_000, skipWebhooks: [],
    });
    const oldest = Array.from({ length: 30 }, (_, i) => `dlv_0${19_901 + i}`);
    expect(claimed.map((c) => c.id)).toEqual(oldest);
    for (const c of claimed) {
      expect(c.loaded.delivery).toMatchObject({ id: c.id, lease_owner: 'wrk_test', lease_until: 160_000 });
      expect(c.loaded.webhook?.id).toBe(webhookId);
      expect(c.loaded.event?.id).toBe(c.loaded.delivery.event_id);
    }
    const again = await deliveryQueue(wp.core).claim({
      owner: 'wrk_other', limit: 100, now: 100_000, leaseMs: 60_000, skipWebhooks: [],
    });
    expect(again).toHaveLength(70); // the leased ones are not claimed twice
  });

  it('finds an ordered record\'s chain and its waiting delivery by their partial indexes; the claim skips waiters',
    async () => {
    // 1,000 deliveries of an ordered webhook: 100 records, the first of each retrying later, nine waiting behind it.
    await sql`INSERT INTO deliveries (id, webhook_id, event_id, event_type, status, attempts, next_attempt_at,
        order_key, waits_for, created_at, updated_at)
      SELECT 'dlv_o' || lpad(i::text, 6, '0'), ${webhookId}, 'evt_' || i, 'booking.updated', 'pending', 0,
        CASE WHEN i <= 100 THEN 900000 END, 'bookings:' || (i % 100),
        CASE WHEN i > 100 THEN 'dlv_o' || lpad((i - 100)::text, 6, '0') END, '2027-01-01', '2027-01-01'
      FROM generate_series(1, 1000) i`.execute(wp.core.db);
    await sql`ANALYZE deliveries`.execute(wp.core.db);
    const explained = async (query: { compile(): CompiledQuery }) => {
      const { sql: text, parameters } = query.compile();
      const { rows } = await wp.core.db.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${text}`, [...parameters]));
      return nodes(rows[0]['QUERY PLAN'][0].Plan).filter((n) => n['Relation Name'] === 'deliveries')
        .map((n) => `${n['Node Type']} ${n['Index Name'] ?? ''}`.trim());
    };
    expect(await explained(chainQuery(wp.core.db, 'bookings:7', [webhookId])))
      .toEqual(['Index Scan deliveries_order_chain']);
    const release = await explained(releaseQuery(wp.core.db, ['dlv_o000107'], 1));
    expect(release.some((n) => n.endsWith('deliveries_waits_for')), release.join()).toBe(true);
    expect(release.join()).not.toContain('Seq Scan');
    const claimed = await deliveryQueue(wp.core).claim({
      owner: 'wrk_third', limit: 500, now: 1_000_000, leaseMs: 60_000, skipWebhooks: [],
    });
    // The 100 heads (beside the 100 unordered), none of the 900 waiting.
    expect(claimed.filter((c) => c.id.startsWith('dlv_o'))).toHaveLength(100);
  });
});

/** A parameter written into an EXECUTE (the test's own values: numbers and plain strings). */
function pgLiteral(value: unknown): string {
  if (value === null) return 'NULL';
  return typeof value === 'number' ? String(value) : `'${String(value).replace(/'/g, "''")}'`;
}
