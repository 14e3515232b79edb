// The delivery log's search box (`q`) finds deliveries by what a person remembers: a traveller's e-mail or name, a
// trip's title, through the records' own search; ids keep working in the same box, and another traveller's
// deliveries are not returned.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { closeAdminSuite, fakeClock, openAdminSuite, type AdminSuite } from './manage/fixtures.js';
import { booking, payment } from './engine/fixtures.js';

interface Item { id: string; event_type: string; resource: string; record_id: number }
interface Listed { items: Item[]; total: number; search?: { records: number; more: boolean } }

const trip = (title: string) => ({ trip_id: 7, title, start_date: '2027-05-01', travellers: 2,
  line_items: [{ label: 'Adult', quantity: 2, price: '625.00', total: '1250.00' }] });

describe.each(DIALECTS)('delivery log search by e-mail, name and trip on %s', (dialect) => {
  let s: AdminSuite;
  beforeEach(async () => {
    s = await openAdminSuite(dialect, fakeClock());
    await s.app.inject({ method: 'POST', url: '/admin/api/webhooks', headers: s.auth,
      payload: { name: 'CRM', url: s.receiver.url, events: ['booking.created', 'booking.updated',
        'booking.payment.completed', 'customer.created'] } });
    await s.wp.put('customers', 501, { email: 'Ana.Silva@example.com', first_name: 'Ana', last_name: 'Silva' });
    await s.wp.put('bookings', 1042, booking({ customer: { email: 'Ana.Silva@example.com', first_name: 'Ana',
      last_name: 'Silva' }, trips: [trip('Douro Valley Wine Trail')] }));
    await s.wp.put('bookings', 1043, booking({ customer: { email: 'ben.okafor@example.org', first_name: 'Ben',
      last_name: 'Okafor' }, trips: [trip('Sahara Nights')] }));
    await s.wp.put('bookings', 1042, booking({ status: 'cancelled', customer: { email: 'Ana.Silva@example.com',
      first_name: 'Ana', last_name: 'Silva' }, trips: [trip('Douro Valley Wine Trail')] }));
    await s.wp.put('payments', 9001, payment({ booking_id: 1042, status: 'completed' }));
    await s.wp.put('payments', 9002, payment({ booking_id: 1043, status: 'completed' }));
  });
  afterEach(async () => closeAdminSuite(s));

  const list = async (query: string) => {
    const res = await s.app.inject({ method: 'GET', url: `/admin/api/deliveries?${query}`, headers: s.auth });
    return { status: res.statusCode, body: res.json() as Listed & { parameter?: string } };
  };
  const about = (page: Listed) => page.items.map((d) => `${d.event_type} ${d.resource} ${d.record_id}`);
  const ANA = ['booking.payment.completed payments 9001', 'booking.updated bookings 1042',
    'booking.created bookings 1042', 'customer.created customers 501'];

  it('finds a traveller\'s deliveries by e-mail (any case), name or trip title, and no one else\'s', async () => {
    const all = (await list('')).body;
    expect(all.total).toBe(7); // Ben's customer record is made from his booking (an assigned id)
    const byEmail = (await list('q=ana.silva%40example.com')).body;
    expect(about(byEmail)).toEqual(ANA);
    expect(byEmail).toMatchObject({ total: 4, search: { records: 3, more: false } });
    expect(about((await list('q=%20ANA.SILVA%40Example.com%20')).body)).toEqual(ANA);
    expect(about((await list('q=Silva')).body)).toEqual(ANA);
    expect(about((await list('q=okafor')).body)).toEqual(['booking.payment.completed payments 9002',
      'booking.created bookings 1043', 'customer.created customers 1000000000000000']);
    expect(about((await list('q=Sahara%20Nights')).body))
      .toEqual(['booking.payment.completed payments 9002', 'booking.created bookings 1043']);
    expect(about((await list('q=douro%20valley')).body)).toEqual(ANA.slice(0, 3));
    expect((await list('q=nobody%40nowhere.test')).body).toMatchObject({ items: [], total: 0 });
  });

  it('pages a search and narrows it with the other filters', async () => {
    const first = (await list('q=ana.silva%40example.com&perpage=3')).body;
    const second = (await list('q=ana.silva%40example.com&perpage=3&page=2')).body;
    expect([...about(first), ...about(second)]).toEqual(ANA);
    expect(first.total).toBe(4);
    expect(about((await list('q=silva&event_type=booking.created')).body)).toEqual([ANA[2]]);
    expect((await list('q=silva&status=failed')).body.total).toBe(0);
  });

  it('keeps ids working in the same box, and refuses a search too short to find anyone', async () => {
    const all = (await list('')).body.items;
    const created = all.find((d) => d.event_type === 'booking.created' && d.record_id === 1043)!;
    const byDelivery = (await list(`q=${created.id}`)).body;
    expect(byDelivery.items.map((d) => d.id)).toEqual([created.id]);
    expect(byDelivery.search).toBeUndefined();
    expect(about((await list('q=1042')).body)).toEqual(ANA.slice(1, 3));
    expect(about((await list('q=booking%201043')).body)).toEqual([about({ items: [created], total: 1 })[0]]);
    expect((await list(`q=${created.id}&event_type=booking.updated`)).body.total).toBe(0);
    for (const q of ['ab', 'x'.repeat(201)]) {
      const res = await list(`q=${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.parameter).toBe('q');
    }
  });
});
