// `waypost demo --remove` (src/demo/remove.ts): exactly the demo goes (its records with their search text, trip
// links and counts, the events it caused with their deliveries, its API keys); what a site wrote beside it stays.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { markDemoKey, seedDemo } from '../../src/demo/seed.js';
import { removeDemo } from '../../src/demo/remove.js';
import { createApiKey, PERMISSIONS } from '../../src/api/keys.js';
import { RESOURCES } from '../../src/records/schemas.js';
import { addWebhook, booking, payment } from '../webhooks/engine/fixtures.js';

const SITE: Array<[string, number, Record<string, unknown>]> = [
  ['trips', 500, { title: 'Site Only Safari' }],
  ['customers', 900, { email: 'maria.site@real-agency.test', first_name: 'Maria', last_name: 'Site' }],
  ['bookings', 901, booking({ customer: { id: 900, email: 'maria.site@real-agency.test', first_name: 'Maria' },
    trips: [{ trip_id: 500, title: 'Site Only Safari' }] })],
  ['payments', 902, payment({ booking_id: 901 })],
  ['reviews', 903, { trip_id: 500, author_name: 'Maria S.', rating: 5 }],
  ['enquiries', 904, { full_name: 'Site Enquirer', email: 'ask@real-agency.test' }],
];

describe.each(DIALECTS)('removing the demo on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  beforeEach(async () => {
    wp = await testWaypost({ dialect });
    app = await wp.app();
  });
  afterEach(async () => wp.close());

  const ids = async (table: string) => (await wp.core.db.selectFrom(table as 'trips').select('id').orderBy('id')
    .execute()).map((r) => Number(r.id));

  it('removes every demo row and what it caused, and leaves the site\'s records, events and keys', async () => {
    await addWebhook(wp.core, 'http://127.0.0.1:9/hook');
    const seeded = await seedDemo(wp.core, { bookings: 80 });
    const demoKey = await createApiKey(wp.core, { label: 'Demo key', permissions: PERMISSIONS });
    await markDemoKey(wp.core, demoKey.id);
    const siteKey = await createApiKey(wp.core, { label: 'Site key', permissions: PERMISSIONS });
    for (const [resource, id, data] of SITE) {
      const res = await app.inject({ method: 'PUT', url: `/host/v1/${resource}/${id}`, headers: HOST_AUTH,
        payload: data });
      expect(res.statusCode, res.body).toBe(201);
    }
    const siteEvents = await wp.core.db.selectFrom('events').select('id').where('record_id', '>=', 500)
      .where('record_id', '<', 1000).execute();
    const allEvents = await wp.core.db.selectFrom('events').select('id').execute();

    const removed = await removeDemo(wp.core);
    for (const r of RESOURCES) expect(removed.records[r], r).toBe(seeded[r].created);
    expect(removed.events).toBe(allEvents.length - siteEvents.length);
    expect(removed.deliveries).toBe(removed.events); // one webhook, subscribed to everything
    expect(removed.api_keys).toBe(1);

    for (const [resource, id] of SITE) expect(await ids(resource), resource).toEqual([id]);
    const links = await wp.core.db.selectFrom('booking_trips').selectAll().execute();
    expect(links.map((l) => l.booking_id)).toEqual([901]);
    expect(await wp.core.db.selectFrom('demo_records').selectAll().execute()).toEqual([]);
    const events = await wp.core.db.selectFrom('events').select(['id', 'record_id']).execute();
    expect(events.map((e) => e.id).sort()).toEqual(siteEvents.map((e) => e.id).sort());
    const deliveries = await wp.core.db.selectFrom('deliveries').select('event_id').execute();
    expect(new Set(deliveries.map((d) => d.event_id))).toEqual(new Set(siteEvents.map((e) => e.id)));
    expect((await wp.core.db.selectFrom('api_keys').select('id').execute()).map((k) => k.id)).toEqual([siteKey.id]);

    // What a reader of the API sees: the site's records only, totals and search included.
    const api = (path: string, key = siteKey) => app.inject({ url: `/rest/waypost/api/v1/${path}`,
      headers: { 'access-token': key.key, 'access-secret': key.secret } });
    const list = await api('bookings');
    expect(list.statusCode).toBe(200);
    expect(list.json().map((b: { id: number }) => b.id)).toEqual([901]);
    expect(list.headers['x-total-count']).toBe('1');
    expect((await api('trips?search=douro')).json()).toEqual([]);
    expect((await api('customers?search=novak')).json()).toEqual([]);
    expect((await api('trips?search=safari')).json().map((t: { id: number }) => t.id)).toEqual([500]);
    expect((await api('bookings', demoKey)).statusCode).toBe(401);

    // The site's customer 29 is now its own record, announced as new.
    const put = await app.inject({ method: 'PUT', url: '/host/v1/customers/29', headers: HOST_AUTH,
      payload: { email: 'twenty.nine@real-agency.test', first_name: 'Twenty', last_name: 'Nine' } });
    expect(put.statusCode).toBe(201);
    const created = await wp.core.db.selectFrom('events').select('type').where('resource', '=', 'customers')
      .where('record_id', '=', 29).execute();
    expect(created.map((e) => e.type)).toEqual(['customer.created']);

    // Nothing left to remove: a second run removes nothing.
    const again = await removeDemo(wp.core);
    expect(again).toEqual({ records: Object.fromEntries(RESOURCES.map((r) => [r, 0])), events: 0, deliveries: 0,
      api_keys: 0 });
  });
});
