// Issue 29 item 10: the demo catalogue used ids a WordPress site uses too (customers 1-80, trips 1-12, reviews 1-40),
// so a connected site's customer 29 updated the demo's customer 29 (keeping the demo's bookings, no customer.created)
// and comment 3 updated demo review 3. Now a host write naming a demo record is refused with a 409 until the demo is
// removed, the bridge's Test connection (an empty batch) is told the demo is here, and neither an import nor the demo
// goes beside the other's records.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { seedDemo } from '../../src/demo/seed.js';
import { importFile } from '../../src/host/import.js';
import { addWebhook, booking, payment } from '../webhooks/engine/fixtures.js';
import { tempDir } from '../cli/run.js';

/** Enough of the catalogue for customer 29, review 3 and booking 1001, quickly. */
const SMALL = { bookings: 80 };

const SITE_CUSTOMER = {
  email: 'maria.site@real-agency.test', first_name: 'Maria', last_name: 'Site', phone: null,
  created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z',
};

describe.each(DIALECTS)('the demo and a site\'s records on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  beforeEach(async () => {
    wp = await testWaypost({ dialect });
    app = await wp.app();
  });
  afterEach(async () => wp.close());

  const put = (path: string, payload: unknown) =>
    app.inject({ method: 'PUT', url: `/host/v1/${path}`, headers: HOST_AUTH, payload: payload as object });
  const batch = (operations: unknown[]) =>
    app.inject({ method: 'POST', url: '/host/v1/batch', headers: HOST_AUTH, payload: { operations } });
  const eventsOf = async (resource: string, id: number) =>
    (await wp.core.db.selectFrom('events').select('type').where('resource', '=', resource)
      .where('record_id', '=', id).orderBy('id').execute()).map((e) => e.type);
  const storedEmail = async (id: number) =>
    (await wp.core.db.selectFrom('customers').select('email').where('id', '=', id).executeTakeFirst())?.email;

  it('refuses a site\'s customer 29 with a 409 telling to remove the demo: no merge, no event', async () => {
    await addWebhook(wp.core, 'http://127.0.0.1:9/hook');
    await seedDemo(wp.core, SMALL);
    const demoEmail = await storedEmail(29);
    const bookingsOf29 = await wp.core.db.selectFrom('bookings').select('id').where('customer_id', '=', 29).execute();
    expect(bookingsOf29.length).toBeGreaterThan(0);

    const res = await put('customers/29', SITE_CUSTOMER);
    expect(res.statusCode).toBe(409);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(res.json()).toMatchObject({ code: 'demo_record', status: 409 });
    expect(res.json().detail).toContain('customers 29 is a record of the demo catalogue');
    expect(res.json().detail).toContain('npx waypost demo --remove');
    expect(await storedEmail(29)).toBe(demoEmail); // the demo's customer is not the site's
    expect(await eventsOf('customers', 29)).toEqual(['customer.created']); // the demo's own, nothing more
  });

  it('refuses writes pointing at demo records (a booking of trip 5, a payment of booking 1001, a delete)', async () => {
    await seedDemo(wp.core, SMALL);
    const site = { email: 'ana@real-agency.test', first_name: 'Ana', last_name: 'Silva' };
    const res = await put('bookings/77', booking({ customer: site, trips: [{ trip_id: 5, title: 'Site trip' }] }));
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toContain('bookings 77 points at trips 5, a record of the demo catalogue');
    expect((await put('payments/9001', payment({ booking_id: 1001 }))).statusCode).toBe(409);
    // No id, but the e-mail of demo customer 26: it would be found by e-mail and merged.
    const byEmail = await put('bookings/78', booking({ trips: [],
      customer: { email: 'diego.novak@example.com', first_name: 'Diego', last_name: 'Novak' } }));
    expect(byEmail.statusCode).toBe(409);
    const del = await app.inject({ method: 'DELETE', url: '/host/v1/reviews/3', headers: HOST_AUTH });
    expect(del.statusCode).toBe(409);
    expect(await wp.core.db.selectFrom('reviews').select('id').where('id', '=', 3).executeTakeFirst()).toBeTruthy();
    for (const id of [77, 78]) expect(await wp.core.db.selectFrom('bookings').select('id').where('id', '=', id)
      .executeTakeFirst()).toBeUndefined();
  });

  it('answers a batch\'s demo operations 409 each and runs the others (comment 3, customer 900)', async () => {
    await seedDemo(wp.core, SMALL);
    const res = await batch([
      { op: 'put', resource: 'reviews', id: 3, data: { trip_id: 900, author_name: 'Site', rating: 5 } },
      { op: 'put', resource: 'customers', id: 900, data: SITE_CUSTOMER },
    ]);
    expect(res.statusCode).toBe(200);
    const [review, customer] = res.json().results;
    expect(review).toMatchObject({ index: 0, status: 409, error: { code: 'demo_record' } });
    expect(customer).toMatchObject({ index: 1, status: 201, created: true });
  });

  it('tells the bridge\'s Test connection (an empty batch) the demo is here, and nothing without it', async () => {
    const before = await batch([]);
    expect(before.statusCode).toBe(200);
    expect(before.json()).toEqual({ results: [] });
    const seeded = await seedDemo(wp.core, SMALL);
    const total = Object.values(seeded).reduce((s, r) => s + r.created, 0);
    const res = await batch([]);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ results: [], demo_records: total });
    expect(res.json().warning).toContain('npx waypost demo --remove');
  });

  it('never seeds the demo beside a site\'s records', async () => {
    expect((await put('customers/900', SITE_CUSTOMER)).statusCode).toBe(201);
    await expect(seedDemo(wp.core, SMALL)).rejects.toMatchObject({ status: 409, code: 'host_data_present' });
    expect(await storedEmail(29)).toBeUndefined();
  });

  it('refuses to import a site\'s records into a database holding the demo', async () => {
    await seedDemo(wp.core, SMALL);
    const file = join(tempDir(), 'site.ndjson');
    writeFileSync(file, `${JSON.stringify({ type: 'customer', id: 29, data: SITE_CUSTOMER })}\n`);
    await expect(importFile(wp.core, file)).rejects.toMatchObject({ status: 409, code: 'demo_records' });
    expect(await storedEmail(29)).not.toBe(SITE_CUSTOMER.email);
  });
});
