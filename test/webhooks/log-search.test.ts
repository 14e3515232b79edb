// The delivery log says which record each event concerns, finds deliveries by delivery id, event id and record id,
// and keeps a deleted webhook among the webhooks it can be filtered by.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { closeAdminSuite, fakeClock, openAdminSuite, type AdminSuite } from './manage/fixtures.js';
import { booking, payment } from './engine/fixtures.js';

describe.each(DIALECTS)('delivery log search on %s', (dialect) => {
  let s: AdminSuite;
  beforeEach(async () => { s = await openAdminSuite(dialect, fakeClock()); });
  afterEach(async () => closeAdminSuite(s));

  const get = async (url: string) => {
    const res = await s.app.inject({ method: 'GET', url: `/admin/api${url}`, headers: s.auth });
    return { status: res.statusCode, body: res.json() };
  };
  const ids = (page: { items: Array<{ id: string }> }) => page.items.map((d) => d.id);

  it('shows the record of each delivery and searches by delivery, event and record id', async () => {
    const hook = (await s.app.inject({ method: 'POST', url: '/admin/api/webhooks', headers: s.auth,
      payload: { name: 'CRM', url: s.receiver.url, events: ['booking.created', 'booking.updated',
        'booking.payment.completed'] } })).json();
    await s.wp.put('bookings', 1042, booking());
    await s.wp.put('bookings', 1043, booking());
    await s.wp.put('bookings', 1042, booking({ status: 'cancelled' }));
    await s.wp.put('payments', 1042, payment({ booking_id: 1042, status: 'completed' }));
    const all = (await get('/deliveries')).body;
    expect(all.total).toBe(4);
    expect(all.items.map((d: { resource: string; record_id: number }) => `${d.resource} ${d.record_id}`))
      .toEqual(['payments 1042', 'bookings 1042', 'bookings 1043', 'bookings 1042']);

    const [payDelivery, , other] = all.items;
    expect(ids((await get(`/deliveries?delivery_id=${other.id}`)).body)).toEqual([other.id]);
    expect(ids((await get(`/deliveries?event_id=${payDelivery.event_id}`)).body)).toEqual([payDelivery.id]);
    const record = (await get('/deliveries?record_id=1042')).body;
    expect(record.total).toBe(3); // both resources with id 1042
    const bookingOnly = (await get('/deliveries?resource=bookings&record_id=1042')).body;
    expect(bookingOnly.items.map((d: { event_type: string }) => d.event_type))
      .toEqual(['booking.updated', 'booking.created']);
    expect((await get(`/deliveries?record_id=1042&webhook_id=${hook.id}&status=pending&perpage=1`)).body)
      .toMatchObject({ total: 3, perpage: 1 });
    expect((await get('/deliveries?delivery_id=dlv_none')).body.total).toBe(0);

    for (const [query, parameter] of [['record_id=abc', 'record_id'], ['record_id=0', 'record_id'],
      ['resource=rooms&record_id=1', 'resource'],
      ['resource=bookings', 'record_id'], [`event_id=${'x'.repeat(101)}`, 'event_id']]) {
      const res = await get(`/deliveries?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.parameter, query).toBe(parameter);
    }
  });

  it('keeps a deleted webhook in the list the log can be filtered by', async () => {
    const make = async (name: string) => (await s.app.inject({ method: 'POST', url: '/admin/api/webhooks',
      headers: s.auth,
      payload: { name, url: s.receiver.url, events: ['booking.created'] } })).json();
    const gone = await make('Old CRM');
    const kept = await make('Accounting');
    await s.wp.put('bookings', 7, booking());
    await s.app.inject({ method: 'DELETE', url: `/admin/api/webhooks/${gone.id}`, headers: s.auth });
    expect((await get('/webhooks')).body.map((w: { id: string }) => w.id)).toEqual([kept.id]);
    expect((await get('/deliveries/webhooks')).body.webhooks).toEqual([
      { id: kept.id, name: 'Accounting', deleted: false }, { id: gone.id, name: 'Old CRM', deleted: true },
    ]);
    expect((await get(`/deliveries?webhook_id=${gone.id}`)).body.items[0])
      .toMatchObject({ webhook_name: 'Old CRM', status: 'cancelled' });
  });
});
