import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { ASSIGNED_ID_MIN, BOOKING_STATUSES, PAYMENT_STATUSES } from '../../src/records/schemas.js';
import { createApiKey, PERMISSIONS } from '../../src/api/keys.js';
import { apiRoot } from '../../src/config.js';

const booking = (over: Record<string, unknown> = {}) => ({
  status: 'booked', currency: 'EUR', total_amount: '1250.00', paid_amount: '250.00',
  customer: { email: 'ana@example.com', first_name: 'Ana', last_name: 'Silva' },
  trips: [{ trip_id: 7, title: 'Douro Valley', start_date: '2027-05-01', travellers: 2,
    line_items: [{ label: 'Adult', quantity: 2, price: '625.00', total: '1250.00' }] }],
  engine_version: '6.8.0', cart_version: '4.1', ...over,
});

describe.each(DIALECTS)('Host API on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  beforeEach(async () => {
    wp = await testWaypost({ dialect });
    app = await wp.app();
  });
  afterEach(async () => wp.close());

  it('rejects writes without the host token', async () => {
    const res = await app.inject({ method: 'PUT', url: '/host/v1/bookings/1', payload: booking() });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('missing_host_token');
    const wrong = await app.inject({ method: 'PUT', url: '/host/v1/bookings/1',
      headers: { authorization: 'Bearer nope' }, payload: booking() });
    expect(wrong.json().code).toBe('invalid_host_token');
  });

  it('creates a booking with its embedded customer, then a repeated PUT changes nothing', async () => {
    const first = await app.inject({ method: 'PUT', url: '/host/v1/bookings/101', headers: HOST_AUTH,
      payload: booking() });
    expect(first.statusCode).toBe(201);
    const rec = first.json().record;
    expect(rec).toMatchObject({ id: 101, total_amount: '1250.00', due_amount: '1000.00', data_complete: true,
      payment_ids: [] });
    expect(rec.customer).toMatchObject({ id: ASSIGNED_ID_MIN, email: 'ana@example.com' });
    const again = await app.inject({ method: 'PUT', url: '/host/v1/bookings/101', headers: HOST_AUTH,
      payload: booking() });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ created: false, changed: false });
    expect(again.json().record.updated_at).toBe(rec.updated_at);
    const changed = await app.inject({ method: 'PUT', url: '/host/v1/bookings/101', headers: HOST_AUTH,
      payload: booking({ status: 'completed' }) });
    expect(changed.json()).toMatchObject({ created: false, changed: true, record: { status: 'completed' } });
  });

  it('rejects an invalid body with 400 naming the field, and writes nothing', async () => {
    const res = await app.inject({ method: 'PUT', url: '/host/v1/bookings/5', headers: HOST_AUTH,
      payload: booking({ total_amount: 'lots' }) });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 400, field: 'total_amount' });
    expect(res.json().detail).toContain('total_amount');
    const unknown = await app.inject({ method: 'PUT', url: '/host/v1/bookings/5', headers: HOST_AUTH,
      payload: booking({ colour: 'red' }) });
    expect(unknown.json()).toMatchObject({ status: 400, field: 'colour' });
    const count = await wp.core.db.selectFrom('bookings').select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
    const customers = await wp.core.db.selectFrom('customers').select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(customers.n)).toBe(0);
  });

  it('refuses a NUL character in any text field with 400 naming it (PostgreSQL cannot store it)', async () => {
    const res = await app.inject({ method: 'PUT', url: '/host/v1/trips/3', headers: HOST_AUTH,
      payload: { title: 'Douro', destinations: ['Porto', 'Re\u0000gua'] } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_field', field: 'destinations.1' });
    expect((await app.inject({ method: 'PUT', url: '/host/v1/trips/3', headers: HOST_AUTH,
      payload: { title: 'Douro' } })).statusCode).toBe(201);
  });

  it('refuses a leap second (valid RFC 3339, not a time JavaScript holds) with 400 naming the field', async () => {
    for (const [field, value] of [['created_at', '2016-12-31T23:59:60Z'], ['booked_at', '1970-01-01T00:59:60+01:00']]) {
      const res = await app.inject({ method: 'PUT', url: '/host/v1/bookings/6', headers: HOST_AUTH,
        payload: booking({ [field]: value }) });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_field', field });
      expect(res.json().detail).toContain('date-time');
    }
    const ok = await app.inject({ method: 'PUT', url: '/host/v1/bookings/6', headers: HOST_AUTH,
      payload: booking({ created_at: '2016-12-31T23:59:59+01:00' }) });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().record.created_at).toBe('2016-12-31T22:59:59.000Z');
  });

  it('answers 400 for a bad id, 404 for an unknown resource, and malformed JSON', async () => {
    expect((await app.inject({ method: 'PUT', url: '/host/v1/bookings/abc', headers: HOST_AUTH, payload: booking() }))
      .statusCode).toBe(400);
    expect((await app.inject({ method: 'PUT', url: '/host/v1/widgets/1', headers: HOST_AUTH, payload: {} })).statusCode)
      .toBe(404);
    const bad = await app.inject({ method: 'PUT', url: '/host/v1/trips/1',
      headers: { ...HOST_AUTH, 'content-type': 'application/json' }, payload: '{"title":' });
    expect(bad.statusCode).toBe(400);
  });

  it('keeps cart < 4.0 bookings with data_complete false and no line items', async () => {
    const res = await wp.put('bookings', 9, booking({ cart_version: '3.0' }));
    expect(res.record.data_complete).toBe(false);
    expect(res.record.trips[0].line_items).toEqual([]);
  });

  it('links payments to their booking and deletes records', async () => {
    await wp.put('bookings', 20, booking());
    await wp.put('payments', 1, { booking_id: 20, status: 'completed', amount: '250.00', currency: 'EUR',
      gateway: 'stripe' });
    const { record } = await wp.put('bookings', 20, booking({ status: 'completed' }));
    expect(record.payment_ids).toEqual([1]);
    const del = await app.inject({ method: 'DELETE', url: '/host/v1/payments/1', headers: HOST_AUTH });
    expect(del.statusCode).toBe(204);
    expect((await app.inject({ method: 'DELETE', url: '/host/v1/payments/1', headers: HOST_AUTH })).statusCode)
      .toBe(404);
  });
  it('takes every status of the product, and stores its other spellings as the one the API shows', async () => {
    const put = (url: string, payload: object) => app.inject({ method: 'PUT', url, headers: HOST_AUTH, payload });
    for (const status of BOOKING_STATUSES) {
      const res = await put('/host/v1/bookings/30', booking({ status, customer: null }));
      expect(res.json().record.status).toBe(status);
    }
    for (const [spelling, stored] of [['cancelled', 'canceled'], ['cancel', 'canceled']]) {
      expect((await put('/host/v1/bookings/31', booking({ status: spelling, customer: null }))).json().record.status)
        .toBe(stored);
    }
    const payment = (status: string) => ({ booking_id: 30, status, amount: '250.00', currency: 'EUR' });
    for (const status of PAYMENT_STATUSES) {
      expect((await put('/host/v1/payments/40', payment(status))).json().record.status).toBe(status);
    }
    const spellings = {
      complete: 'completed', success: 'completed', settlement: 'completed', capture: 'captured', cancel: 'canceled',
      cancelled: 'canceled', 'voucher-awaiting': 'voucher-waiting', deny: 'failed', expire: 'failed', revoked: 'failed',
    };
    for (const [spelling, stored] of Object.entries(spellings)) {
      const res = await put('/host/v1/payments/41', payment(spelling));
      expect(res.statusCode, spelling).toBeLessThan(300);
      expect(res.json().record.status, spelling).toBe(stored);
    }
    // The stored spelling is the canonical one: the API's status filter finds it.
    const row = await wp.core.db.selectFrom('payments').select('status').where('id', '=', 41).executeTakeFirstOrThrow();
    expect(row.status).toBe('failed');
    // The same PUT in another spelling of the same status changes nothing.
    expect((await put('/host/v1/payments/41', payment('expire'))).json()).toMatchObject({ changed: false });
  });

  it('refuses an unknown status with 400 naming status and listing the accepted values', async () => {
    const put = (url: string, payload: object) => app.inject({ method: 'PUT', url, headers: HOST_AUTH, payload });
    const res = await put('/host/v1/bookings/32', booking({ status: 'paid' }));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_field', field: 'status' });
    expect(res.json().detail).toBe('status must be one of: pending, reserved, booked, completed, canceled, refunded, '
      + 'failed; also accepted: cancel (= canceled), cancelled (= canceled)');
    // Spellings are exact: the product writes them in lower case.
    const pay = await put('/host/v1/payments/42', {
      booking_id: 32, status: 'Completed', amount: '1.00', currency: 'EUR',
    });
    expect(pay.statusCode).toBe(400);
    expect(pay.json().field).toBe('status');
    expect(pay.json().detail).toMatch(/^status must be one of: pending, completed, captured, partially-paid, /);
    expect(pay.json().detail).toContain('voucher-awaiting (= voucher-waiting)');
    // Booking-only: the gateway words are payment statuses, not booking ones.
    const gatewayWord = await put('/host/v1/bookings/32', booking({ status: 'settlement' }));
    expect(gatewayWord.json()).toMatchObject({ status: 400, field: 'status' });
  });

  /** GET from the public REST API, as a client of it would. */
  async function apiGet(path: string): Promise<any> {
    const key = await createApiKey(wp.core, { label: 'reader', permissions: [...PERMISSIONS] });
    const res = await app.inject({ url: `${apiRoot(wp.config)}${path}`,
      headers: { 'access-token': key.key, 'access-secret': key.secret } });
    expect(res.statusCode, path).toBe(200);
    return res.json();
  }
  const putJson = (url: string, payload: unknown) => app.inject({ method: 'PUT', url, headers: HOST_AUTH,
    payload: payload as object });

  it('takes back what the API shows: the id (the path\'s) and the read-only fields are accepted and ignored',
    async () => {
    await wp.put('trips', 7, { title: 'Douro Valley Walk' });
    await wp.put('customers', 3, { email: 'bo@example.com', first_name: 'Bo', last_name: 'Ek' });
    await wp.put('bookings', 20,
      booking({ customer: { id: 3, email: 'bo@example.com', first_name: 'Bo', last_name: 'Ek' } }));
    await wp.put('bookings', 21, booking({ cart_version: '3.0' }));
    await wp.put('payments', 5, { booking_id: 20, status: 'completed', amount: '250.00', currency: 'EUR' });
    for (const path of ['/trips/7', '/customers/3', '/bookings/20', '/bookings/21', '/payments/5']) {
      const shown = await apiGet(path);
      const res = await putJson(`/host/v1${path}`, shown);
      expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
      expect(res.json(), path).toMatchObject({ created: false, changed: false });
      expect(res.json().record, path).toEqual(shown);
    }
    // Read-only fields are ignored, not obeyed: the derived lists stay what they are.
    const shown = await apiGet('/bookings/20');
    expect(shown.payment_ids).toEqual([5]);
    const edited = await putJson('/host/v1/bookings/20', { ...shown, status: 'completed', payment_ids: [],
      data_complete: false });
    expect(edited.json())
      .toMatchObject({ changed: true, record: { status: 'completed', payment_ids: [5], data_complete: true } });
    // The id as the path writes it (digits) is the same id.
    expect((await putJson('/host/v1/trips/7', { title: 'Douro Valley Walk', id: '7' })).statusCode).toBe(200);
  });

  it('refuses a body whose id is not the path\'s with 400 naming id, and writes nothing', async () => {
    for (const id of [8, '8', 0, 'seven', null]) {
      const res = await putJson('/host/v1/trips/7', { id, title: 'Douro' });
      expect(res.statusCode, String(id)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_field', field: 'id' });
      expect(res.json().detail).toContain('does not match the id in the path (7)');
    }
    expect(await wp.core.db.selectFrom('trips').select('id').execute()).toEqual([]);
    // Still unknown fields are refused, as before.
    expect((await putJson('/host/v1/trips/7', { title: 'Douro', booking_ids: [] })).json())
      .toMatchObject({ status: 400, field: 'booking_ids' });
  });

  it('shows a booking\'s embedded customer without names with the names of the customer it links to', async () => {
    await wp.put('customers', 3, { email: 'ana@example.com', first_name: 'Ana', last_name: 'Silva' });
    await wp.put('bookings', 10, booking({ customer: { id: 3, email: 'ana@example.com' } }));
    await wp.put('bookings', 11,
      booking({ customer: { id: 3, email: 'ana@example.com', first_name: 'Ana Maria', last_name: null } }));
    expect((await apiGet('/bookings/10')).customer)
      .toEqual({ id: 3, email: 'ana@example.com', first_name: 'Ana', last_name: 'Silva', phone: null });
    // The booking's own names win; only a missing one is filled in.
    expect((await apiGet('/bookings/11')).customer).toMatchObject({ first_name: 'Ana Maria', last_name: 'Silva' });
    const list = await apiGet('/bookings?customer_id=3');
    expect(list.map((b: any) => [b.id, b.customer.first_name, b.customer.last_name]))
      .toEqual([[11, 'Ana Maria', 'Silva'], [10, 'Ana', 'Silva']]);
    // A later change of the customer shows at once (the bookings' cached answers are dropped).
    await wp.put('customers', 3, { email: 'ana@example.com', first_name: 'Ana', last_name: 'Costa' });
    expect((await apiGet('/bookings/10')).customer).toMatchObject({ first_name: 'Ana', last_name: 'Costa' });
    expect((await apiGet('/bookings?customer_id=3'))[0].customer.last_name).toBe('Costa');
  });

  it('takes a review without a rating (null or absent) and refuses 0 or 6', async () => {
    const review = (over: Record<string, unknown>) => ({ trip_id: 7, author_name: 'Di', content: 'Lovely', ...over });
    const put = (id: number, payload: object) =>
      app.inject({ method: 'PUT', url: `/host/v1/reviews/${id}`, headers: HOST_AUTH, payload });
    expect((await put(1, review({ rating: null }))).json()).toMatchObject({ created: true, record: { rating: null } });
    expect((await put(2, review({}))).json().record.rating).toBeNull();
    expect((await put(3, review({ rating: 4 }))).json().record.rating).toBe(4);
    for (const rating of [0, 6, 2.5, '5']) {
      const res = await put(4, review({ rating }));
      expect(res.statusCode, String(rating)).toBe(400);
      expect(res.json().field).toBe('rating');
    }
  });
});
