// The WordPress bridge's mapping, end to end: each WP Travel Engine fixture (real data the product wrote) is
// backfilled by the bridge (Waypost_Bridge_Backfill_Batch::run, the CLI's code path) into a running Waypost over
// the Host API, and every record Waypost then shows is compared, field by field, with the fixture's truth file (the
// product's own model classes reading the same data back).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { testWaypost } from '../helpers/waypost.js';
import { apiRoot } from '../../src/config.js';
import { createApiKey, PERMISSIONS, type CreatedApiKey } from '../../src/api/keys.js';
import { readStored } from '../../src/records/rows.js';
import type { Waypost } from '../../src/sdk.js';
import { addWebhook } from '../webhooks/engine/fixtures.js';
import { BRIDGE_DIR, hasWordPress, startWordPress, truth, type Fixture, type WordPress } from './wordpress.js';
import { backfill, canonical, iso, money, orNull, PAID } from './mapping-helpers.js';

const available = await hasWordPress();
const FIXTURE_URL = 'http://127.0.0.1:8095';

describe.skipIf(!available).each<Fixture>(['wpte-6.8.0', 'wpte-upgraded-from-6.6.8', 'wpte-upgraded-and-migrated'])(
  'backfill of %s', (fixture) => {
  const t = truth(fixture);
  let waypost: Waypost;
  let app: FastifyInstance;
  let site: WordPress;
  let key: CreatedApiKey;
  let run: { batches: number; cursor: any };

  // What the truth file says the bridge should send.
  const superseded = new Set<number>(t.bookings.filter((b: any) => b.engine._migrated_to).map((b: any) => b.id));
  const visible = t.bookings.filter((b: any) => b.engine['cart_info.version'] === '4.0' && !superseded.has(b.id));
  const legacy = t.bookings.filter((b: any) => b.engine['cart_info.version'] !== '4.0' && !superseded.has(b.id));
  // Payments are sent for visible bookings only: a legacy booking's would show for a booking no one can read.
  const payments = t.payments.filter((p: any) => visible.some((b: any) => b.id === p.booking_id));
  // A payment's amount: what was received (payment_amount.value, which the truth shows as `amount`, 0 when
  // absent), else what is asked (payable.amount) while nothing was received.
  const paymentAmount = (p: any) => money(p.amount !== 0 ? p.amount : p.payable);
  const siteUrl = (url: string) => url.replace(FIXTURE_URL, site.url);

  const get = async (path: string) => {
    const res = await app.inject({ method: 'GET', url: `${apiRoot(waypost.config)}${path}`,
      headers: { 'access-token': key.key, 'access-secret': key.secret } });
    return { status: res.statusCode, body: res.json(), total: Number(res.headers['x-total-count']) };
  };

  beforeAll(async () => {
    waypost = await testWaypost();
    app = await waypost.app();
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    key = await createApiKey(waypost.core, { label: 'bridge test', permissions: [...PERMISSIONS] });
    // A subscriber, so that Waypost records the events a receiver would get.
    await addWebhook(waypost.core, 'http://127.0.0.1:9/hook',
      { events: ['booking.created', 'booking.payment.completed', 'customer.created', 'review.created',
      'enquiry.created'] });
    site = await startWordPress({ fixture, plugins: [BRIDGE_DIR],
      constants: { WAYPOST_URL: address, WAYPOST_HOST_TOKEN: 'test-host-token' } });
    run = await backfill(site, 4);
  }, 120_000);

  afterAll(async () => {
    await site?.close();
    await waypost?.close();
  });

  it('sends everything in batches of the given size, skipping only superseded and unpublishable records', () => {
    const c = run.cursor;
    expect(c.resource).toBeNull();
    expect(c.failed).toBe(0);
    expect(c.position).toBe(c.total);
    // Trips, customers, bookings, payments, enquiries (approved reviews: none in the fixtures).
    const candidates = t.trips.length + t.customers.length + t.bookings.length + t.payments.length + t.enquiries.length;
    expect(c.total).toBe(candidates);
    const skipped = superseded.size + t.payments.length - payments.length;
    expect(c.skipped).toBe(skipped);
    expect(c.sent).toBe(candidates - skipped);
    expect(run.batches).toBeGreaterThanOrEqual(Math.ceil(c.total / 4));
  });

  it('trips: title, status, code, duration, price of the primary package, url', async () => {
    const list = await get('/trips?perpage=100');
    expect(list.total).toBe(t.trips.length);
    const urls = new Map<number, string>();
    for (const b of t.bookings) for (const bt of b.plugin_data.booked_trips) urls.set(Number(bt.id), bt.url);
    for (const e of t.enquiries) urls.set(Number(e.plugin_data.trip.id), e.plugin_data.trip.url);
    let urlsChecked = 0;
    for (const tt of t.trips) {
      const { status, body } = await get(`/trips/${tt.id}`);
      expect(status).toBe(200);
      const pkg = tt.packages.find((p: any) => p.id === tt.primary_package);
      const cat = Object.keys(pkg.categories)[0];
      const [value, unit] = String(tt.duration).split(' ');
      expect(body).toMatchObject({
        id: tt.id,
        title: tt.title,
        status: tt.status,
        code: tt.trip_code,
        duration: { value: Number(value), unit },
        price: {
          amount: money(pkg.prices[cat]),
          sale_amount: pkg.sale_enabled?.[cat] ? money(pkg.sale_prices[cat]) : null,
          currency: t.options.currency_code,
        },
        destinations: [],
        activities: [],
      });
      if (urls.has(tt.id)) {
        expect(body.url).toBe(siteUrl(urls.get(tt.id)!));
        urlsChecked++;
      }
    }
    expect(urlsChecked).toBeGreaterThan(0);
  });

  it('customers: e-mail, names, address, phone, and their visible bookings', async () => {
    const list = await get('/customers?perpage=100');
    expect(list.total).toBe(t.customers.length);
    for (const c of t.customers) {
      const { status, body } = await get(`/customers/${c.id}`);
      expect(status).toBe(200);
      const pd = c.plugin_data;
      expect(body).toMatchObject({
        id: c.id,
        email: c.email,
        first_name: c.first_name,
        last_name: c.last_name,
        address: { line1: orNull(pd.address), city: orNull(pd.city), state: orNull(pd.state),
          postcode: orNull(pd.postcode), country: orNull(pd.country) },
      });
      // Billing has no phone: the lead traveller's (one this person gave on a booking).
      const phones = t.bookings.filter((b: any) => b.customer.email === c.email).map((b: any) => b.customer.phone);
      expect(c.phone ? [c.phone] : phones).toContain(body.phone);
      const own = visible.filter((b: any) => b.customer.customer_record?.id === c.id).map((b: any) => b.id)
        .sort((a: number, b: number) => a - b);
      expect(body.booking_ids).toEqual(own);
    }
  });

  it('bookings: status, amounts (paid and due from the payments), customer link, trips and line items, versions',
    async () => {
    const list = await get('/bookings?perpage=100');
    expect(list.total).toBe(visible.length);
    expect(list.body.map((b: any) => b.id).sort()).toEqual(visible.map((b: any) => b.id).sort());
    for (const b of visible) {
      const { status, body } = await get(`/bookings/${b.id}`);
      expect(status).toBe(200);
      const own = payments.filter((p: any) => p.booking_id === b.id);
      const paid = own.filter((p: any) => PAID.includes(canonical(p.status)))
        .reduce((sum: number, p: any) => sum + Number(paymentAmount(p)), 0);
      expect(body).toEqual({
        id: b.id,
        status: canonical(b.status),
        booked_at: iso(b.booked_date_gmt),
        currency: b.currency,
        total_amount: money(b.total),
        paid_amount: money(paid),
        due_amount: money(Math.max(0, Number(b.total) - paid)),
        customer: {
          id: b.customer.customer_record.id,
          email: b.customer.email,
          first_name: b.customer.first_name,
          last_name: b.customer.last_name,
          phone: orNull(b.customer.phone),
        },
        trips: b.trips.map((bt: any, i: number) => ({
          trip_id: bt.trip_id,
          title: bt.title,
          start_date: String(bt.start).slice(0, 10),
          end_date: String(bt.end ?? b.plugin_data.booked_trips[i].trip_end_date).slice(0, 10),
          travellers: b.plugin_data.booked_trips[i].number_of_travellers,
          line_items: (b.plugin_data.booked_trips[i].line_items?.pricing_category ?? bt.line_items.pricing_category)
            .map((li: any) => ({
            label: li.label, quantity: Number(li.quantity), price: money(li.price), total: money(li.total),
          })),
        })),
        payment_ids: own.map((p: any) => p.id).sort((x: number, y: number) => x - y),
        engine_version: t.options.wptravelengine_version,
        cart_version: '4.0',
        data_complete: true,
        created_at: iso(b.booked_date_gmt),
        updated_at: expect.any(String),
      });
    }
  });

  it('legacy bookings (no cart version) are stored as engine < 6.7.0, absent from the API; their payments are not sent',
    async () => {
    for (const b of legacy) {
      expect((await get(`/bookings/${b.id}`)).status).toBe(404);
      for (const p of t.payments.filter((x: any) => x.booking_id === b.id)) {
        expect((await get(`/payments/${p.id}`)).status).toBe(404);
        expect(await readStored(waypost.core.db, 'payments', p.id)).toBeNull();
      }
      const stored = await readStored(waypost.core.db, 'bookings', b.id);
      expect(stored)
        .toMatchObject({ cart_version: '3.0', data_complete: false, engine_version: t.options.wptravelengine_since });
      expect(stored!.trips.every((trip) => trip.line_items.length === 0)).toBe(true);
    }
    if (fixture === 'wpte-upgraded-from-6.6.8') expect(legacy.length).toBe(5);
    else expect(legacy.length).toBe(0);
  });

  it('migrated bookings: the copy is a new booking; the legacy original and its payments are not sent', async () => {
    const copies = visible.filter((b: any) => b.engine._migrated_from);
    expect(copies.length).toBe(fixture === 'wpte-upgraded-and-migrated' ? 5 : 0);
    for (const b of copies) expect((await get(`/bookings/${b.id}`)).status).toBe(200);
    for (const id of superseded) {
      expect((await get(`/bookings/${id}`)).status).toBe(404);
      expect(await readStored(waypost.core.db, 'bookings', id)).toBeNull();
    }
    for (const p of t.payments.filter((x: any) => superseded.has(x.booking_id))) {
      expect((await get(`/payments/${p.id}`)).status).toBe(404);
    }
    // What a webhook receiver saw: booking.created for every visible booking (migrated copies included), none
    // for legacy ones.
    const events = await waypost.core.db.selectFrom('events').select(['type', 'record_id', 'data'])
      .where('type', '=', 'booking.created').execute();
    expect(events.map((e) => e.record_id).sort()).toEqual(visible.map((b: any) => b.id).sort());
    // Payments go before their bookings, so each booking.created already lists the booking's payments.
    for (const e of events) {
      const shown = (await get(`/bookings/${e.record_id}`)).body.payment_ids;
      expect(JSON.parse(e.data).payment_ids).toEqual(shown);
    }
    // One booking.payment.completed per real completed payment: none for a legacy booking's, so a migrated
    // booking's payment is not counted twice.
    const paid = await waypost.core.db.selectFrom('events').select('record_id')
      .where('type', '=', 'booking.payment.completed').execute();
    expect(paid.map((e) => e.record_id).sort()).toEqual(payments.filter((p: any) => p.status === 'completed')
      .map((p: any) => p.id).sort());
  });

  it('payments: booking, canonical status, amount, gateway, transaction, due flag, paid time', async () => {
    const list = await get('/payments?perpage=100');
    expect(list.total).toBe(payments.length);
    const dates = new Map<number, string>();
    for (const b of t.bookings) for (const p of b.plugin_data.payments) dates.set(p.id, p.date);
    for (const p of payments) {
      const { status, body } = await get(`/payments/${p.id}`);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        id: p.id,
        booking_id: p.booking_id,
        status: canonical(p.status),
        amount: paymentAmount(p),
        currency: p.currency,
        gateway: orNull(p.gateway),
        transaction_id: orNull(p.transaction_id),
        is_due_payment: p.is_due_payment === 'yes',
        paid_at: dates.get(p.id) ? iso(dates.get(p.id)!) : null,
      });
    }
  });

  it('enquiries: name, e-mail, phone, country, message, trip', async () => {
    for (const e of t.enquiries) {
      const stored = await readStored(waypost.core.db, 'enquiries', e.id);
      expect(stored).toMatchObject({
        id: e.id,
        full_name: e.plugin_data.full_name,
        email: e.plugin_data.email,
        phone: e.plugin_data.contact,
        country: e.plugin_data.country,
        message: e.plugin_data.message,
        trip: { id: e.plugin_data.trip.id, title: e.plugin_data.trip.title },
      });
    }
  });

  it('reviews: held for moderation → not sent; approved → sent, rating null without the stars add-on', async () => {
    for (const r of t.reviews) expect(await readStored(waypost.core.db, 'reviews', r.id)).toBeNull();
    const [first, ...others] = t.reviews;
    // The admin approves them; the paid add-on would have stored stars on one.
    await site.sql(`UPDATE wp_comments SET comment_approved = '1' WHERE comment_ID IN (${t.reviews.map((r: any) => r.id)
      .join(',')});`);
    if (others.length) await site.sql(
      `INSERT INTO wp_commentmeta (comment_id, meta_key, meta_value) VALUES (${others[0].id}, 'stars', '4');`);
    // The CLI command, with its progress lines (same run_batch underneath), started over.
    const out = await site.php(
      "Waypost_Bridge_Cli::backfill( array(), array( 'batch-size' => 50, 'restart' => true ) );");
    expect(out).toMatch(/100% \d+\/\d+ done/);
    expect(out).toMatch(/Success: Backfill done/);
    const stored = await readStored(waypost.core.db, 'reviews', first.id);
    expect(stored).toMatchObject({ id: first.id, trip_id: first.trip_id, author_name: first.full_name, rating: null,
      content: first.content });
    if (others.length) expect(await readStored(waypost.core.db, 'reviews', others[0].id)).toMatchObject({ rating: 4 });
    const events = await waypost.core.db.selectFrom('events').select('record_id').where('type', '=', 'review.created')
      .execute();
    expect(events.length).toBe(t.reviews.length);
  });

  it('a second run changes nothing and fires nothing', async () => {
    const before = await waypost.core.db.selectFrom('events').select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    const again = await backfill(site, 200);
    expect(again.cursor.failed).toBe(0);
    const after = await waypost.core.db.selectFrom('events').select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    expect(Number(after!.n)).toBe(Number(before!.n));
  });
});
