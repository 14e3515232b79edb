// PostgreSQL's claim reads only what it leases: the due rows from deliveries_due and their rows by primary key,
// however many finished deliveries the table keeps (30 days of them by default). Written as `id IN (…)`, the update
// was planned as a hash join over a sequential scan of the whole table, every claim. The plan is taken as the worker
// runs it: on the queue's own connection, whose session turns sorts off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { claimStatement } from '../../../src/webhooks/delivery/queue/base.js';
import { deliveryQueue } from '../../../src/webhooks/delivery/queue/index.js';
import { addWebhook } from './fixtures.js';

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; Plans?: PlanNode[] }

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
    const ordered = wp.core.store.pg!.ordered();
    const client = await ordered.connect();
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
});
