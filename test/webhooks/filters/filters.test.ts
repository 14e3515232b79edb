// Payload filters end to end, on both databases: saved through the admin API (a 400 naming the part), evaluated in
// the host write's transaction (a skipped webhook gets no delivery row, the event is kept and names who skipped it),
// and previewed over the last 50 real events of the chosen types.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../../helpers/db.js';
import type { Waypost } from '../../../src/sdk.js';
import { booking } from '../engine/fixtures.js';
import { closeAdminSuite, openAdminSuite, type Receiver } from '../manage/fixtures.js';

const BIG_EUR = { all: [{ field: 'data.currency', eq: 'EUR' }, { field: 'data.total_amount', gte: 1000 }] };

describe.each(DIALECTS)('payload filters on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let auth: Record<string, string>;
  let receiver: Receiver;

  beforeEach(async () => ({ wp, app, auth, receiver } = await openAdminSuite(dialect)));
  afterEach(async () => closeAdminSuite({ wp, receiver }));

  const post = (url: string, payload: unknown) =>
    app.inject({ method: 'POST', url: `/admin/api${url}`, headers: auth, payload: payload as object });
  const create = async (over: Record<string, unknown>) => {
    const res = await post('/webhooks', { name: 'CRM', url: receiver.url, events: ['booking.created'], ...over });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; filter: unknown; filter_preview: { matched: number; total: number } | null };
  };
  const deliveriesOf = async (webhookId: string) => (await wp.core.db.selectFrom('deliveries')
    .innerJoin('events', 'events.id', 'deliveries.event_id').select('events.record_id')
    .where('webhook_id', '=', webhookId).orderBy('events.record_id').execute()).map((r) => r.record_id);

  it('a filtered webhook gets deliveries of matching events only; the others are stored and name it', async () => {
    const filtered = await create({ filter: BIG_EUR });
    const all = await create({});
    await wp.put('bookings', 1, booking({ total_amount: '1250.00' }));
    await wp.put('bookings', 2, booking({ total_amount: '999.99' }));
    await wp.put('bookings', 3, booking({ currency: 'USD', total_amount: '5000.00' }));
    expect(await deliveriesOf(filtered.id)).toEqual([1]);
    expect(await deliveriesOf(all.id)).toEqual([1, 2, 3]);
    const events = await wp.core.db.selectFrom('events').select(['record_id', 'skipped_by_filter'])
      .where('type', '=', 'booking.created').orderBy('record_id').execute();
    expect(events.map((e) => [e.record_id, e.skipped_by_filter ? JSON.parse(e.skipped_by_filter) : null]))
      .toEqual([[1, null], [2, [filtered.id]], [3, [filtered.id]]]);
  });

  it('an event every subscriber skipped is still stored, and the delivery detail says who skipped it', async () => {
    const only = await create({ filter: { field: 'data.trips[].trip_id', eq: 8 }, events: ['booking.created'] });
    const other = await create({ filter: { field: 'data.trips[].trip_id', eq: 7 }, events: ['booking.created'] });
    await wp.put('bookings', 1, booking()); // its trip is 7
    expect(await deliveriesOf(only.id)).toEqual([]);
    const [delivery] = await wp.core.db.selectFrom('deliveries').select('id').where('webhook_id', '=', other.id)
      .execute();
    const detail = await app.inject({ method: 'GET', url: `/admin/api/deliveries/${delivery.id}`, headers: auth });
    expect(detail.json().event.skipped_by_filter).toEqual([only.id]);

    await app.inject({ method: 'DELETE', url: `/admin/api/webhooks/${other.id}`, headers: auth });
    await wp.put('bookings', 2, booking());
    const stored = await wp.core.db.selectFrom('events').select('skipped_by_filter').where('record_id', '=', 2)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(stored.skipped_by_filter!)).toEqual([only.id]);
    expect(await wp.core.db.selectFrom('deliveries').select('id').where('webhook_id', '=', only.id).execute())
      .toHaveLength(0);
  });

  it('filters an update by what changed (previous_attributes) and by a status list', async () => {
    const hook = await create({ events: ['booking.updated'], filter: { all: [
      { field: 'previous_attributes.status', exists: true }, { field: 'data.status', in: ['booked', 'completed'] },
    ] } });
    await wp.put('bookings', 1, booking({ status: 'pending' }));
    await wp.put('bookings', 1, booking({ status: 'pending', paid_amount: '1250.00' })); // status unchanged
    await wp.put('bookings', 1, booking({ status: 'booked', paid_amount: '1250.00' }));
    await wp.put('bookings', 1, booking({ status: 'canceled', paid_amount: '1250.00' }));
    const rows = await wp.core.db.selectFrom('deliveries').innerJoin('events', 'events.id', 'deliveries.event_id')
      .select('events.data').where('webhook_id', '=', hook.id).execute();
    expect(rows.map((r) => (JSON.parse(r.data) as { status: string }).status)).toEqual(['booked']);
  });

  it('refuses an invalid filter or an unknown field with a 400 naming the part, and stores nothing', async () => {
    const bad = await post('/webhooks', { name: 'CRM', url: receiver.url, events: ['booking.created'],
      filter: { any: [{ field: 'data.currency', eq: 'EUR' }, { field: 'data.customer.mail', ends_with: '@p.com' }] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ field: 'filter', part: 'filter.any[1].field' });
    expect(bad.json().detail).toContain('unknown field "data.customer.mail" for booking.created (did you mean '
      + '"data.customer.email"?)');
    expect(await wp.core.db.selectFrom('webhooks').select('id').execute()).toHaveLength(0);

    const hook = await create({ events: ['review.created'], filter: { field: 'data.rating', gte: 4 } });
    // Changing the types re-checks the stored filter: bookings have no rating.
    const moved = await app.inject({ method: 'PATCH', url: `/admin/api/webhooks/${hook.id}`, headers: auth,
      payload: { events: ['booking.created'] } });
    expect(moved.statusCode).toBe(400);
    expect(moved.json().detail).toContain('filter.field: unknown field "data.rating" for booking.created');
    const cleared = await app.inject({ method: 'PATCH', url: `/admin/api/webhooks/${hook.id}`, headers: auth,
      payload: { events: ['booking.created'], filter: null } });
    expect(cleared.json()).toMatchObject({ events: ['booking.created'], filter: null, filter_preview: null });
  });

  it('previews a filter over the last 50 real events, and keeps the count of a saved one', async () => {
    for (let id = 1; id <= 55; id++) {
      await wp.put('bookings', id, booking({ currency: id % 5 === 0 ? 'USD' : 'EUR' }));
    }
    await create({}); // a subscriber or none: every event is stored (the event feed)
    for (let id = 56; id <= 60; id++) await wp.put('bookings', id, booking({ currency: 'USD' }));
    const usd = { field: 'data.currency', eq: 'USD' };
    const preview = await post('/webhooks/preview-filter', { events: ['booking.created'], filter: usd });
    expect(preview.statusCode).toBe(200);
    // The last 50 are bookings 11-60: USD for 15, 20, …, 55 (9) and 56-60 (5).
    expect(preview.json()).toMatchObject({ matched: 14, total: 50 });
    for (let id = 61; id <= 120; id++) {
      await wp.put('bookings', id, booking({ currency: id % 4 === 1 ? 'USD' : 'EUR' }));
    }
    const last50 = (await post('/webhooks/preview-filter', { events: ['booking.created'], filter: usd })).json();
    // Bookings 71-120, USD when id % 4 is 1: 73, 77, …, 117.
    expect([last50.matched, last50.total]).toEqual([12, 50]);
    expect(last50.events[0].id > last50.events[49].id).toBe(true);

    const never = await create({ filter: { field: 'data.currency', eq: 'GBP' } });
    expect(never.filter_preview).toMatchObject({ matched: 0, total: 50 });
    const listed = await app.inject({ method: 'GET', url: `/admin/api/webhooks/${never.id}`, headers: auth });
    expect(listed.json()).toMatchObject({ filter: { field: 'data.currency', eq: 'GBP' },
      filter_preview: { matched: 0, total: 50 } });

    const badPreview = await post('/webhooks/preview-filter', { events: ['booking.created'],
      filter: { field: 'data.total_amount', gte: 'a lot' } });
    expect(badPreview.statusCode).toBe(400);
    expect(badPreview.json().part).toBe('filter.gte');
    expect((await post('/webhooks/preview-filter', { events: [] })).statusCode).toBe(400);
  });

  it('suggests the fields of the chosen event types', async () => {
    const res = await app.inject({ method: 'GET', url: '/admin/api/events/fields?events=booking.updated',
      headers: auth });
    const paths = (res.json().items as Array<{ path: string }>).map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['data.status', 'data.trips[].trip_id', 'data.customer.email',
      'previous_attributes.status']));
    expect(paths).not.toContain('data.rating');
  });
});
