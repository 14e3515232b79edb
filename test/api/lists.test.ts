import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { apiFixture, booking, customer, parseLinks, payment, relative, trip, type ApiFixture } from './setup.js';

const at = (minute: number) => new Date(Date.parse('2026-02-01T00:00:00Z') + minute * 60_000).toISOString();
const ids = (body: Array<{ id: number }>) => body.map((r) => r.id);

describe.each(DIALECTS)('REST API lists and records on %s', (dialect) => {
  let f: ApiFixture;
  beforeAll(async () => {
    f = await apiFixture(dialect);
    await f.wp.put('trips', 7, trip({ title: 'Douro Valley Walk', status: 'publish' }));
    await f.wp.put('trips', 8,
      trip({ title: 'Alentejo Cycling', code: 'AL-2', status: 'draft', destinations: ['Évora'] }));
    await f.wp.put('customers', 1, customer({ email: 'Ana@Example.com' }));
    await f.wp.put('customers', 2, customer({ email: 'bruno@example.com', first_name: 'Bruno', last_name: 'Costa' }));
    // 24 visible bookings with increasing times (two share a time, to exercise ties), 1 legacy, 1 with an old cart.
    for (let i = 1; i <= 24; i++) {
      const minute = i === 12 ? 11 : i;
      await f.wp.put('bookings', i, booking({
        status: i % 3 === 0 ? 'completed' : 'booked',
        customer: i % 2 === 0 ? { id: 2, email: 'bruno@example.com' } : { id: 1, email: 'ana@example.com' },
        trips: [{ trip_id: i % 4 === 0 ? 8 : 7, title: i % 4 === 0 ? 'Alentejo Cycling' : 'Douro Valley Walk' }],
        created_at: at(minute), updated_at: at(100 - minute),
      }));
    }
    await f.wp.put('bookings', 50, booking({ engine_version: '6.6.9', created_at: at(200), updated_at: at(200) }));
    await f.wp.put('bookings', 51, booking({ cart_version: '3.9', created_at: at(201), updated_at: at(201) }));
    await f.wp.put('payments', 1, payment({ booking_id: 2, status: 'completed' }));
    await f.wp.put('payments', 2, payment({ booking_id: 2, status: 'refunded', transaction_id: 'ch_refund_9' }));
    await f.wp.put('payments', 3, payment({ booking_id: 3, status: 'pending' }));
  });
  afterAll(async () => f.wp.close());

  it('omits legacy bookings everywhere and marks old carts data_complete:false', async () => {
    const list = await f.get('/bookings?perpage=100');
    expect(list.statusCode).toBe(200);
    expect(ids(list.json())).not.toContain(50);
    expect(list.headers['x-total-count']).toBe('25');
    expect((await f.get('/bookings/50')).statusCode).toBe(404);
    const customer1 = (await f.get('/customers/1')).json();
    expect(customer1.booking_ids).not.toContain(50);
    const old = (await f.get('/bookings/51')).json();
    expect(old.data_complete).toBe(false);
    expect(old.trips[0].line_items).toEqual([]);
    await f.wp.put('bookings', 52, booking({ created_at: at(202), updated_at: at(202) }));
    expect((await f.get('/bookings/52')).json())
      .toMatchObject({ id: 52, data_complete: true, trips: [{ line_items: [{ label: 'Adult' }] }] });
    await f.wp.delete('bookings', 52);
  });

  it('returns records in the public shape with their derived ids', async () => {
    const b = (await f.get('/bookings/2')).json();
    expect(b.payment_ids).toEqual([1, 2]);
    expect(Object.keys(b)).toEqual(['id', 'status', 'booked_at', 'currency', 'total_amount', 'paid_amount',
      'due_amount', 'customer', 'trips', 'payment_ids', 'engine_version', 'cart_version', 'data_complete', 'created_at',
      'updated_at']);
    const c = (await f.get('/customers/2')).json();
    expect(c.booking_ids).toEqual([2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24]);
    expect((await f.get('/payments/3')).json())
      .toMatchObject({ id: 3, booking_id: 3, status: 'pending', amount: '250.00' });
    expect((await f.get('/trips/8')).json()).toMatchObject({ id: 8, title: 'Alentejo Cycling', status: 'draft' });
    expect((await f.get('/trips/999')).statusCode).toBe(404);
  });

  it('paginates with perpage and page, with totals and first/prev/next/last links', async () => {
    const first = await f.get('/bookings');
    expect(first.json()).toHaveLength(10);
    expect(first.headers['x-total-count']).toBe('25');
    expect(first.headers['x-total-pages']).toBe('3');
    const p2 = await f.get('/bookings?perpage=10&page=2');
    expect(ids(p2.json())).toEqual([15, 14, 13, 12, 11, 10, 9, 8, 7, 6]); // 51 and 24..16 are on page 1
    const links = parseLinks(p2.headers.link);
    expect(Object.keys(links).sort()).toEqual(['first', 'last', 'next', 'prev']);
    expect(new URL(links.next).searchParams.get('page')).toBe('3');
    expect(new URL(links.prev).searchParams.get('page')).toBe('1');
    expect(new URL(links.last).searchParams.get('page')).toBe('3');
    const p3 = await f.get(relative(links.next, f.root));
    expect(ids(p3.json())).toEqual([5, 4, 3, 2, 1]);
    expect(parseLinks(p3.headers.link).next).toBeUndefined();
    expect((await f.get('/bookings?page=9')).json()).toEqual([]);
  });

  it.each([
    ['id', 'desc'], ['id', 'asc'], ['updated_at', 'asc'], ['created_at', 'desc'],
  ])('walks every row exactly once by following next cursors (orderby=%s order=%s)', async (orderby, order) => {
    const seen: number[] = [];
    let path: string | null = `/bookings?perpage=4&orderby=${orderby}&order=${order}`;
    while (path) {
      const res = await f.get(path);
      expect(res.statusCode).toBe(200);
      seen.push(...ids(res.json()));
      const next = parseLinks(res.headers.link).next;
      if (next) expect(new URL(next).searchParams.get('after')).toBeTruthy();
      path = next ? relative(next, f.root) : null;
    }
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    const all = await f.get(`/bookings?perpage=100&orderby=${orderby}&order=${order}`);
    expect(seen).toEqual(ids(all.json()));
  });

  it('sorts by the allowed fields in both directions, ties broken by id', async () => {
    const byCreated = ids((await f.get('/bookings?perpage=5&orderby=created_at&order=asc')).json());
    expect(byCreated).toEqual([1, 2, 3, 4, 5]);
    const byUpdated = ids((await f.get('/bookings?perpage=30&orderby=updated_at&order=asc')).json());
    expect(byUpdated.slice(0, 3)).toEqual([24, 23, 22]);
    expect(byUpdated.indexOf(11)).toBe(byUpdated.indexOf(12) - 1); // same updated_at: by id
    expect(ids((await f.get('/trips?orderby=title&order=asc')).json())).toEqual([8, 7]);
    expect(ids((await f.get('/customers?orderby=email&order=desc')).json())).toEqual([2, 1]);
    expect(ids((await f.get('/payments?orderby=id&order=asc')).json())).toEqual([1, 2, 3]);
  });

  it('filters bookings by status, customer, trip and e-mail, with filtered totals', async () => {
    const completed = await f.get('/bookings?status=completed&perpage=100');
    expect(ids(completed.json())).toEqual([24, 21, 18, 15, 12, 9, 6, 3]);
    expect(completed.headers['x-total-count']).toBe('8');
    expect(completed.headers['x-total-pages']).toBe('1');
    expect(ids((await f.get('/bookings?customer_id=2&perpage=3')).json())).toEqual([24, 22, 20]);
    expect((await f.get('/bookings?customer_id=2&perpage=3')).headers['x-total-count']).toBe('12');
    expect(ids((await f.get('/bookings?trip_id=8&perpage=100')).json())).toEqual([24, 20, 16, 12, 8, 4]);
    expect((await f.get('/bookings?email=BRUNO@example.com')).headers['x-total-count']).toBe('12');
    expect(ids((await f.get('/bookings?status=completed&trip_id=8')).json())).toEqual([24, 12]);
  });

  it('filters payments, customers and trips', async () => {
    expect(ids((await f.get('/payments?booking_id=2')).json())).toEqual([2, 1]);
    expect(ids((await f.get('/payments?status=pending')).json())).toEqual([3]);
    expect(ids((await f.get('/customers?email=ana@EXAMPLE.com')).json())).toEqual([1]);
    expect(ids((await f.get('/trips?status=draft')).json())).toEqual([8]);
  });

  it('searches case-insensitively for substrings of at least 3 characters', async () => {
    const res = await f.get('/customers?search=COSTA');
    expect(ids(res.json())).toEqual([2]);
    expect(res.headers['x-total-count']).toBe('1');
    expect(ids((await f.get('/trips?search=vora')).json())).toEqual([8]);
    expect(ids((await f.get('/payments?search=refund')).json())).toEqual([2]);
    expect((await f.get('/bookings?search=alentejo&perpage=100')).json()).toHaveLength(6);
    expect((await f.get('/bookings?search=nothing-like-this')).json()).toEqual([]);
    const short = await f.get('/bookings?search=ab');
    expect(short.statusCode).toBe(400);
    expect(short.json().parameter).toBe('search');
  });

  it('returns only records modified after a time', async () => {
    const res = await f.get(`/bookings?modified_after=${encodeURIComponent(at(96))}&orderby=updated_at&order=asc`);
    expect(ids(res.json())).toEqual([3, 2, 1, 51]); // updated at minutes 97, 98, 99 and 201; legacy 50 is absent
    expect(res.headers['x-total-count']).toBe('4');
  });

  it.each([
    ['perpage=0', 'perpage'], ['perpage=101', 'perpage'], ['perpage=ten', 'perpage'], ['page=0', 'page'],
    ['orderby=price', 'orderby'], ['order=up', 'order'], ['colour=red', 'colour'],
      ['modified_after=yesterday', 'modified_after'],
    ['after=not-a-cursor', 'after'], ['status=lost', 'status'], ['customer_id=abc', 'customer_id'],
      ['trip_id=0', 'trip_id'],
    ['perpage=5&perpage=6', 'perpage'], ['search=%00abc', 'search'], ['email=a%00b', 'email'],
    [`orderby=created_at&after=${Buffer.from(JSON.stringify(['created_at', 'desc', 'x\u0000', 1]))
      .toString('base64url')}`, 'after'], ['page=2&after=WyJpZCIsImRlc2MiLDMsM10', 'after'],
  ])('answers 400 naming the parameter for ?%s', async (qs, parameter) => {
    const res = await f.get(`/bookings?${qs}`);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 400, code: 'invalid_parameter', parameter });
    expect(res.json().detail).toContain(parameter);
  });

  it('refuses a cursor made for another sort order', async () => {
    const next = parseLinks((await f.get('/bookings?perpage=2&orderby=created_at')).headers.link).next;
    const after = new URL(next).searchParams.get('after');
    const res = await f.get(`/bookings?orderby=updated_at&after=${after}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().parameter).toBe('after');
  });

  it('answers 400 for a malformed record id and for query parameters on a record', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '12345678901234567890']) {
      const res = await f.get(`/bookings/${id}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().parameter).toBe('id');
    }
    expect((await f.get('/bookings/1?perpage=2')).json().parameter).toBe('perpage');
  });
});
