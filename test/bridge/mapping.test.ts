// The WordPress bridge's mapping, end to end: each WP Travel Engine fixture (real data the product wrote) is
// backfilled by the bridge (Waypost_Bridge_Backfill::run_batch, the CLI's code path) into a running Waypost over
// the Host API, and every record Waypost then shows is compared, field by field, with the fixture's truth file (the
// product's own model classes reading the same data back).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { testWaypost } from '../helpers/waypost.js';
import { apiRoot } from '../../src/config.js';
import { createApiKey, PERMISSIONS, type CreatedApiKey } from '../../src/api/keys.js';
import { readStored } from '../../src/records/rows.js';
import type { Waypost } from '../../src/sdk.js';
import { addWebhook } from '../webhooks/engine/fixtures.js';
import { BRIDGE_DIR, hasWordPress, startWordPress, truth, type Fixture, type WordPress } from './wordpress.js';

const available = await hasWordPress();
const FIXTURE_URL = 'http://127.0.0.1:8095';
const PAID = ['completed', 'captured', 'partially-paid', 'check-received', 'voucher-received'];
const money = (v: unknown) => Number(v).toFixed(2);
const iso = (mysql: string) => new Date(`${mysql.replace(' ', 'T')}Z`).toISOString();
const orNull = (v: unknown) => (v === '' || v === undefined || v === null ? null : v);
const STATUS_SPELLINGS: Record<string, string> = { cancelled: 'canceled', cancel: 'canceled', complete: 'completed' };
const canonical = (s: string) => STATUS_SPELLINGS[s] ?? s;

/** Runs backfill batches in PHP until done; returns the final cursor and the number of batches. */
export async function backfill(site: WordPress, size: number, from: 'start' | 'resume' = 'start'): Promise<{ batches: number; cursor: any }> {
  const out = await site.php(`
    $cursor  = ${from === 'start' ? 'null' : 'Waypost_Bridge_Backfill::saved_cursor()'};
    $batches = 0;
    do {
      $r = Waypost_Bridge_Backfill::run_batch( $cursor, ${size} );
      if ( null !== $r['error'] ) { fwrite( STDERR, $r['error'] ); exit( 1 ); }
      $cursor = $r['cursor'];
      ++$batches;
    } while ( ! $r['done'] );
    echo wp_json_encode( array( 'batches' => $batches, 'cursor' => $cursor ) );
  `);
  return JSON.parse(out);
}

describe.skipIf(!available).each<Fixture>(['wpte-6.8.0', 'wpte-upgraded-from-6.6.8', 'wpte-upgraded-and-migrated'])('backfill of %s', (fixture) => {
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
    const res = await app.inject({ method: 'GET', url: `${apiRoot(waypost.config)}${path}`, headers: { 'access-token': key.key, 'access-secret': key.secret } });
    return { status: res.statusCode, body: res.json(), total: Number(res.headers['x-total-count']) };
  };

  beforeAll(async () => {
    waypost = await testWaypost();
    app = await waypost.app();
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    key = await createApiKey(waypost.core, { label: 'bridge test', permissions: [...PERMISSIONS] });
    // A subscriber, so that Waypost records the events a receiver would get.
    await addWebhook(waypost.core, 'http://127.0.0.1:9/hook', { events: ['booking.created', 'booking.payment.completed', 'customer.created', 'review.created', 'enquiry.created'] });
    site = await startWordPress({ fixture, plugins: [BRIDGE_DIR], constants: { WAYPOST_URL: address, WAYPOST_HOST_TOKEN: 'test-host-token' } });
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
        address: { line1: orNull(pd.address), city: orNull(pd.city), state: orNull(pd.state), postcode: orNull(pd.postcode), country: orNull(pd.country) },
      });
      // Billing has no phone: the lead traveller's (one this person gave on a booking).
      const phones = t.bookings.filter((b: any) => b.customer.email === c.email).map((b: any) => b.customer.phone);
      expect(c.phone ? [c.phone] : phones).toContain(body.phone);
      const own = visible.filter((b: any) => b.customer.customer_record?.id === c.id).map((b: any) => b.id).sort((a: number, b: number) => a - b);
      expect(body.booking_ids).toEqual(own);
    }
  });

  it('bookings: status, amounts (paid and due from the payments), customer link, trips and line items, versions', async () => {
    const list = await get('/bookings?perpage=100');
    expect(list.total).toBe(visible.length);
    expect(list.body.map((b: any) => b.id).sort()).toEqual(visible.map((b: any) => b.id).sort());
    for (const b of visible) {
      const { status, body } = await get(`/bookings/${b.id}`);
      expect(status).toBe(200);
      const own = payments.filter((p: any) => p.booking_id === b.id);
      const paid = own.filter((p: any) => PAID.includes(canonical(p.status))).reduce((sum: number, p: any) => sum + Number(paymentAmount(p)), 0);
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
          line_items: (b.plugin_data.booked_trips[i].line_items?.pricing_category ?? bt.line_items.pricing_category).map((li: any) => ({
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

  it('legacy bookings (no cart version) are stored as engine < 6.7.0, absent from the API; their payments are not sent', async () => {
    for (const b of legacy) {
      expect((await get(`/bookings/${b.id}`)).status).toBe(404);
      for (const p of t.payments.filter((x: any) => x.booking_id === b.id)) {
        expect((await get(`/payments/${p.id}`)).status).toBe(404);
        expect(await readStored(waypost.core.db, 'payments', p.id)).toBeNull();
      }
      const stored = await readStored(waypost.core.db, 'bookings', b.id);
      expect(stored).toMatchObject({ cart_version: '3.0', data_complete: false, engine_version: t.options.wptravelengine_since });
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
    const paid = await waypost.core.db.selectFrom('events').select('record_id').where('type', '=', 'booking.payment.completed').execute();
    expect(paid.map((e) => e.record_id).sort()).toEqual(payments.filter((p: any) => p.status === 'completed').map((p: any) => p.id).sort());
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
    await site.sql(`UPDATE wp_comments SET comment_approved = '1' WHERE comment_ID IN (${t.reviews.map((r: any) => r.id).join(',')});`);
    if (others.length) await site.sql(`INSERT INTO wp_commentmeta (comment_id, meta_key, meta_value) VALUES (${others[0].id}, 'stars', '4');`);
    // The CLI command, with its progress lines (same run_batch underneath), started over.
    const out = await site.php("Waypost_Bridge_Cli::backfill( array(), array( 'batch-size' => 50, 'restart' => true ) );");
    expect(out).toMatch(/100% \d+\/\d+ done/);
    expect(out).toMatch(/Success: Backfill done/);
    const stored = await readStored(waypost.core.db, 'reviews', first.id);
    expect(stored).toMatchObject({ id: first.id, trip_id: first.trip_id, author_name: first.full_name, rating: null, content: first.content });
    if (others.length) expect(await readStored(waypost.core.db, 'reviews', others[0].id)).toMatchObject({ rating: 4 });
    const events = await waypost.core.db.selectFrom('events').select('record_id').where('type', '=', 'review.created').execute();
    expect(events.length).toBe(t.reviews.length);
  });

  it('a second run changes nothing and fires nothing', async () => {
    const before = await waypost.core.db.selectFrom('events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
    const again = await backfill(site, 200);
    expect(again.cursor.failed).toBe(0);
    const after = await waypost.core.db.selectFrom('events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
    expect(Number(after!.n)).toBe(Number(before!.n));
  });
});

describe.skipIf(!available)('bridge connection', () => {
  let waypost: Waypost;
  let site: WordPress;
  let address: string;

  beforeAll(async () => {
    waypost = await testWaypost();
    address = await (await waypost.app()).listen({ port: 0, host: '127.0.0.1' });
    site = await startWordPress({ fixture: 'wpte-6.8.0', plugins: [BRIDGE_DIR] });
  }, 60_000);

  afterAll(async () => {
    await site?.close();
    await waypost?.close();
  });

  it('stores a typed token encrypted, shows only its last 4 characters, and tests the connection', async () => {
    const out = JSON.parse(await site.php(`
      $before = Waypost_Bridge_Client::test_connection();
      Waypost_Bridge_Connection::set_url( ${JSON.stringify(address)} );
      Waypost_Bridge_Connection::set_token( 'wrong-token-1234' );
      $wrong = Waypost_Bridge_Client::test_connection();
      Waypost_Bridge_Connection::set_token( 'test-host-token' );
      echo wp_json_encode( array(
        'before' => $before, 'wrong' => $wrong, 'right' => Waypost_Bridge_Client::test_connection(),
        'stored' => get_option( Waypost_Bridge_Connection::OPTION_TOKEN ), 'hint' => Waypost_Bridge_Connection::token_hint(),
        'token' => Waypost_Bridge_Connection::get_token(),
      ) );
    `));
    expect(out.before).toMatchObject({ ok: false, status: 0 });
    expect(out.before.message).toMatch(/not connected/);
    expect(out.wrong).toMatchObject({ ok: false, status: 401 });
    expect(out.right).toMatchObject({ ok: true, status: 200 });
    expect(out.stored).toMatch(/^wpb1:/);
    expect(out.stored).not.toContain('test-host-token');
    expect(out.hint).toBe('••••••••oken');
    expect(out.token).toBe('test-host-token');
  });

  it('cannot read the stored token once the salts change', async () => {
    const out = JSON.parse(await site.php(`
      add_filter( 'salt', function () { return 'other salt'; } );
      echo wp_json_encode( array( 'token' => Waypost_Bridge_Connection::get_token(), 'problem' => Waypost_Bridge_Connection::token_problem() ) );
    `));
    expect(out.token).toBe('');
    expect(out.problem).toMatch(/Enter it again/);
  });

  it('registers `wp waypost backfill|status|test-connection` under WP-CLI', async () => {
    const out = await site.php(`
      define( 'WP_CLI', true );
      class WP_CLI {
        public static $commands = array();
        public static function add_command( $name, $callable ) { self::$commands[] = $name; }
        public static function log( $m ) { echo $m, "\\n"; }
        public static function success( $m ) { echo 'Success: ', $m, "\\n"; }
      }
      Waypost_Bridge_Cli::register();
      echo implode( ',', WP_CLI::$commands ), "\\n";
      Waypost_Bridge_Cli::status();
    `);
    expect(out).toContain('waypost backfill,waypost status,waypost test-connection');
    expect(out).toMatch(/Backfill: not started/);
  });

  it('puts, deletes and signs in through the client', async () => {
    const out = JSON.parse(await site.php(`
      echo wp_json_encode( array(
        'put' => Waypost_Bridge_Client::put( 'trips', 19, Waypost_Bridge_Mapper::record( 'trips', 19 ) ),
        'del' => Waypost_Bridge_Client::delete( 'trips', 19 ),
        'gone' => Waypost_Bridge_Client::delete( 'trips', 19 ),
        'bad' => Waypost_Bridge_Client::put( 'trips', 19, array( 'title' => 5 ) ),
        'link' => Waypost_Bridge_Client::sign_in_link( 'admin@example.org', 'Admin' ),
      ) );
    `));
    expect(out.put).toMatchObject({ status: 201, error: null, body: { created: true } });
    expect(out.del).toMatchObject({ status: 204, error: null });
    expect(out.gone).toMatchObject({ status: 404, error: null });
    expect(out.bad.status).toBe(400);
    expect(out.bad.error).toMatch(/title/);
    expect(out.link.status).toBe(201);
    expect(out.link.body.url).toMatch(/sign-in-link\?token=/);
  });

  it('splits a batch of more than 500 operations and numbers the results across the parts', async () => {
    const out = JSON.parse(await site.php(`
      $ops = array();
      for ( $i = 1; $i <= 501; $i++ ) { $ops[] = array( 'op' => 'put', 'resource' => 'trips', 'id' => 1000 + $i, 'data' => array( 'title' => "Trip $i" ) ); }
      $ops[] = array( 'op' => 'put', 'resource' => 'trips', 'id' => 2000, 'data' => array( 'title' => 7 ) );
      $r = Waypost_Bridge_Client::batch( $ops );
      echo wp_json_encode( array( 'error' => $r['error'], 'n' => count( $r['body']['results'] ), 'last' => end( $r['body']['results'] ), 'first' => $r['body']['results'][0] ) );
    `));
    expect(out).toMatchObject({ error: null, n: 502, first: { index: 0, status: 201 }, last: { index: 501, status: 400 } });
  });

  it('sends the operations one by one to a Waypost without the batch endpoint', async () => {
    // An older Waypost: no POST /host/v1/batch (its 404 for an unknown route); everything else passes through.
    const app = await waypost.app();
    const old = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        if (req.method === 'POST' && req.url === '/host/v1/batch') {
          res.writeHead(404, { 'content-type': 'application/problem+json' });
          res.end(JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found', detail: 'No route for POST /host/v1/batch' }));
          return;
        }
        const answer = await app.inject({ method: req.method as 'PUT', url: req.url!, headers: req.headers, payload: Buffer.concat(chunks) });
        res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json') });
        res.end(answer.body);
      });
    });
    await new Promise<void>((r) => old.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(old.address() as AddressInfo).port}`;
      const out = JSON.parse(await site.php(`
        Waypost_Bridge_Connection::set_url( ${JSON.stringify(url)} );
        $r = Waypost_Bridge_Client::batch( array(
          array( 'op' => 'put', 'resource' => 'trips', 'id' => 3001, 'data' => array( 'title' => 'A' ) ),
          array( 'op' => 'put', 'resource' => 'trips', 'id' => 3002, 'data' => array( 'title' => 7 ) ),
          array( 'op' => 'delete', 'resource' => 'trips', 'id' => 3001 ),
        ) );
        Waypost_Bridge_Connection::set_url( ${JSON.stringify(address)} );
        echo wp_json_encode( $r );
      `));
      expect(out.error).toBeNull();
      expect(out.body.results.map((r: any) => [r.index, r.status])).toEqual([[0, 201], [1, 400], [2, 204]]);
      expect(out.body.results[1].error.detail).toMatch(/title/);
    } finally {
      old.close();
    }
  });
});
