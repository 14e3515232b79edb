// Finding one person (an erasure, an export, the erasure's preview) costs what they have, not what the site has: every
// query it runs, captured as it runs among 20,000 other customers, bookings, enquiries, reviews, events, deliveries
// and past links of deleted records, is an index search: no table scan, no sort of a whole table. On both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  sql, type CompiledQuery, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs,
  type QueryResult, type RootOperationNode, type UnknownRow, type QueryId,
} from 'kysely';
import { DIALECTS } from '../helpers/db.js';
import { pgPlanNodes, sqlitePlan } from '../helpers/plans.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { findPerson, personDeliveries, personEvents, receivedBy } from '../../src/privacy/person.js';
import { addWebhook } from '../webhooks/engine/fixtures.js';

/** Keeps every query run through it, to be explained afterwards. */
class Captured implements KyselyPlugin {
  readonly queries: Array<{ node: RootOperationNode; queryId: QueryId }> = [];
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.queries.push({ node: args.node, queryId: args.queryId });
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

const N = 20_000;
const EMAIL = 'plan.person@example.com';

describe.each(DIALECTS)('finding a person on %s', (dialect) => {
  let wp: Waypost;

  beforeAll(async () => {
    wp = await testWaypost({ dialect });
    const db = wp.core.db;
    const now = new Date().toISOString();
    const seq = (n: number) => sql`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n})`;
    const person = `'{"email":"someone@example.com","first_name":"Some","last_name":"One","phone":null}'`;
    await sql`${seq(N)} INSERT INTO customers (id, data, email, search_text, created_at, updated_at)
      SELECT 100000 + i, ${sql.raw(person)}, 'c' || i || '@example.com', '', ${now}, ${now} FROM s`.execute(db);
    await sql`${seq(N)} INSERT INTO bookings (id, data, status, customer_id, customer_email, visible, booked_at,
      search_text, created_at, updated_at)
      SELECT 100000 + i, '{"customer":null}', 'booked', 100000 + i, 'c' || i || '@example.com', 1, ${now}, '',
        ${now}, ${now} FROM s`.execute(db);
    await sql`${seq(N)} INSERT INTO payments (id, data, booking_id, status, search_text, created_at, updated_at)
      SELECT 100000 + i, '{}', 100000 + i, 'completed', '', ${now}, ${now} FROM s`.execute(db);
    await sql`${seq(N)} INSERT INTO enquiries (id, data, email, created_at)
      SELECT 100000 + i, '{"full_name":"Some One","phone":null}', 'c' || i || '@example.com', ${now} FROM s`
      .execute(db);
    await sql`${seq(N)} INSERT INTO reviews (id, data, trip_id, author, created_at)
      SELECT 100000 + i, '{}', 7, 'author ' || i, ${now} FROM s`.execute(db);
    await sql`UPDATE reviews SET author_email_sha256 = 'h' || id WHERE id % 2 = 0`.execute(db);
    await sql`${seq(N)} INSERT INTO events (id, type, resource, record_id, data, test, created_at)
      SELECT 'evt_' || (100000 + i), 'booking.created', 'bookings', 100000 + i, '{}', 0, ${now} FROM s`.execute(db);
    await sql`INSERT INTO deliveries (id, webhook_id, event_id, event_type, status, attempts, created_at, updated_at)
      SELECT 'dlv_' || substr(id, 5), 'wh_other', id, type, 'succeeded', 1, created_at, created_at FROM events`
      .execute(db);
    // The person: a customer, a booking, an enquiry and two reviews (one with her e-mail), their events delivered.
    await addWebhook(wp.core, 'http://127.0.0.1:9/hook');
    await wp.put('customers', 50, { email: EMAIL, first_name: 'Plan', last_name: 'Person' });
    await wp.put('bookings', 60, { status: 'booked', currency: 'EUR', total_amount: '10.00',
      customer: { id: 50, email: EMAIL }, engine_version: '6.8.0', cart_version: '4.1' });
    await wp.put('enquiries', 70, { full_name: 'Plan Person', email: EMAIL });
    await wp.put('reviews', 80, { trip_id: 7, author_name: 'Plan Person', author_email: EMAIL });
    await wp.put('reviews', 81, { trip_id: 7, author_name: 'Plan Person' });
    // A booking of hers the host deleted, and everyone else's past links: hers is found by its e-mail hash.
    await wp.put('bookings', 61, { status: 'booked', currency: 'EUR', total_amount: '20.00',
      customer: { id: 50, email: EMAIL }, engine_version: '6.8.0', cart_version: '4.1' });
    await wp.delete('bookings', 61);
    await sql`${seq(N)} INSERT INTO past_subjects (id, resource, record_id, email_sha256, name_sha256, customer_id,
      from_event_id, until_event_id, changed_at_ms)
      SELECT 'psb_' || i, 'bookings', 100000 + i, 'h' || i, 'n' || i, 100000 + i, '', 'evt_z', i FROM s`.execute(db);
    await sql`ANALYZE`.execute(db);
  }, 120_000);

  afterAll(async () => {
    await wp?.close();
  });

  async function explain(query: CompiledQuery): Promise<string> {
    if (dialect === 'sqlite') return sqlitePlan(wp, query).join('\n');
    return JSON.stringify((await pgPlanNodes(wp, query))
      .map((n) => ({ type: n['Node Type'], table: n['Relation Name'], index: n['Index Name'] })));
  }

  it('finds them, their events and deliveries with index searches only', async () => {
    const captured = new Captured();
    const db = wp.core.db.withPlugin(captured);
    const person = await findPerson(db, { email: EMAIL, customerId: null });
    const events = await personEvents(db, person);
    const deliveries = await personDeliveries(db, events);
    const webhooks = await receivedBy(db, deliveries.map((d) => ({ ...d, attempts: 1 })));
    expect([person.customers.length, person.bookings.length, person.enquiries.length, person.reviews.length])
      .toEqual([1, 1, 1, 2]); // a review by e-mail, one by name
    expect(person.past).toMatchObject([{ resource: 'bookings', id: 61 }]);
    expect(events.map((e) => e.type).sort()).toEqual(['booking.created', 'booking.created', 'customer.created',
      'enquiry.created', 'review.created', 'review.created']);
    expect(deliveries).toHaveLength(6);
    expect(webhooks).toHaveLength(1);
    expect(captured.queries.length).toBeGreaterThanOrEqual(8);
    for (const { node, queryId } of captured.queries) {
      const query = wp.core.db.getExecutor().compileQuery(node, queryId);
      if (/from "webhooks"/.test(query.sql)) continue; // a handful of rows: a scan is the plan to expect
      const plan = await explain(query);
      if (dialect === 'sqlite') {
        expect(plan, query.sql)
          .not.toMatch(/SCAN (customers|bookings|payments|enquiries|reviews|events|deliveries|past_subjects)/);
        expect(plan, query.sql).not.toMatch(/TEMP B-TREE/);
        expect(plan, query.sql).toMatch(/SEARCH/);
      } else {
        expect(plan, query.sql).not.toMatch(/"Seq Scan"/);
        expect(plan, query.sql).not.toMatch(/"type":"Sort"/);
      }
    }
  });
});
