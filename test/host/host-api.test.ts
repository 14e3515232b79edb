import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { ASSIGNED_ID_MIN } from '../../src/records/schemas.js';

const booking = (over: Record<string, unknown> = {}) => ({
  status: 'booked', currency: 'EUR', total_amount: '1250.00', paid_amount: '250.00',
  customer: { email: 'ana@example.com', first_name: 'Ana', last_name: 'Silva' },
  trips: [{ trip_id: 7, title: 'Douro Valley', start_date: '2027-05-01', travellers: 2, line_items: [{ label: 'Adult', quantity: 2, price: '625.00', total: '1250.00' }] }],
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
    const wrong = await app.inject({ method: 'PUT', url: '/host/v1/bookings/1', headers: { authorization: 'Bearer nope' }, payload: booking() });
    expect(wrong.json().code).toBe('invalid_host_token');
  });

  it('creates a booking with its embedded customer, then a repeated PUT changes nothing', async () => {
    const first = await app.inject({ method: 'PUT', url: '/host/v1/bookings/101', headers: HOST_AUTH, payload: booking() });
    expect(first.statusCode).toBe(201);
    const rec = first.json().record;
    expect(rec).toMatchObject({ id: 101, total_amount: '1250.00', due_amount: '1000.00', data_complete: true, payment_ids: [] });
    expect(rec.customer).toMatchObject({ id: ASSIGNED_ID_MIN, email: 'ana@example.com' });
    const again = await app.inject({ method: 'PUT', url: '/host/v1/bookings/101', headers: HOST_AUTH, payload: booking() });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ created: false, changed: false });
    expect(again.json().record.updated_at).toBe(rec.updated_at);
    const changed = await app.inject({ method: 'PUT', url: '/host/v1/bookings/101', headers: HOST_AUTH, payload: booking({ status: 'completed' }) });
    expect(changed.json()).toMatchObject({ created: false, changed: true, record: { status: 'completed' } });
  });

  it('rejects an invalid body with 400 naming the field, and writes nothing', async () => {
    const res = await app.inject({ method: 'PUT', url: '/host/v1/bookings/5', headers: HOST_AUTH, payload: booking({ total_amount: 'lots' }) });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 400, field: 'total_amount' });
    expect(res.json().detail).toContain('total_amount');
    const unknown = await app.inject({ method: 'PUT', url: '/host/v1/bookings/5', headers: HOST_AUTH, payload: booking({ colour: 'red' }) });
    expect(unknown.json()).toMatchObject({ status: 400, field: 'colour' });
    const count = await wp.core.db.selectFrom('bookings').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
    const customers = await wp.core.db.selectFrom('customers').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(customers.n)).toBe(0);
  });

  it('refuses a NUL character in any text field with 400 naming it (PostgreSQL cannot store it)', async () => {
    const res = await app.inject({ method: 'PUT', url: '/host/v1/trips/3', headers: HOST_AUTH, payload: { title: 'Douro', destinations: ['Porto', 'Re\u0000gua'] } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_field', field: 'destinations.1' });
    expect((await app.inject({ method: 'PUT', url: '/host/v1/trips/3', headers: HOST_AUTH, payload: { title: 'Douro' } })).statusCode).toBe(201);
  });

  it('answers 400 for a bad id, 404 for an unknown resource, and malformed JSON', async () => {
    expect((await app.inject({ method: 'PUT', url: '/host/v1/bookings/abc', headers: HOST_AUTH, payload: booking() })).statusCode).toBe(400);
    expect((await app.inject({ method: 'PUT', url: '/host/v1/widgets/1', headers: HOST_AUTH, payload: {} })).statusCode).toBe(404);
    const bad = await app.inject({ method: 'PUT', url: '/host/v1/trips/1', headers: { ...HOST_AUTH, 'content-type': 'application/json' }, payload: '{"title":' });
    expect(bad.statusCode).toBe(400);
  });

  it('keeps cart < 4.0 bookings with data_complete false and no line items', async () => {
    const res = await wp.put('bookings', 9, booking({ cart_version: '3.0' }));
    expect(res.record.data_complete).toBe(false);
    expect(res.record.trips[0].line_items).toEqual([]);
  });

  it('links payments to their booking and deletes records', async () => {
    await wp.put('bookings', 20, booking());
    await wp.put('payments', 1, { booking_id: 20, status: 'completed', amount: '250.00', currency: 'EUR', gateway: 'stripe' });
    const { record } = await wp.put('bookings', 20, booking({ status: 'completed' }));
    expect(record.payment_ids).toEqual([1]);
    const del = await app.inject({ method: 'DELETE', url: '/host/v1/payments/1', headers: HOST_AUTH });
    expect(del.statusCode).toBe(204);
    expect((await app.inject({ method: 'DELETE', url: '/host/v1/payments/1', headers: HOST_AUTH })).statusCode).toBe(404);
  });
});
