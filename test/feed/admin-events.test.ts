// The console's Events view through the admin API, on both databases: the list newest first with the feed's filters
// and cursor, one event with what happened to it at each webhook (delivered, skipped by its filter, not subscribed,
// created later, disabled), and "Send to webhook…", which a real receiver then gets.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../helpers/db.js';
import type { Waypost } from '../../src/sdk.js';
import { attemptDelivery } from '../../src/webhooks/delivery/attempt.js';
import { booking } from '../webhooks/engine/fixtures.js';
import { closeAdminSuite, openAdminSuite, type Receiver } from '../webhooks/manage/fixtures.js';
import type { EventDetail, EventListPage } from '../../src/feed/views.js';

describe.each(DIALECTS)('events admin API on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  let auth: Record<string, string>;
  let receiver: Receiver;

  beforeEach(async () => ({ wp, app, auth, receiver } = await openAdminSuite(dialect)));
  afterEach(async () => closeAdminSuite({ wp, receiver }));

  const get = (url: string) => app.inject({ method: 'GET', url: `/admin/api${url}`, headers: auth });
  const post = (url: string, payload: object) =>
    app.inject({ method: 'POST', url: `/admin/api${url}`, headers: auth, payload });
  const create = async (over: Record<string, unknown>) => {
    const res = await post('/webhooks', { name: 'CRM', url: receiver.url, events: ['booking.created'], ...over });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string };
  };
  const list = async (query: string) => {
    const res = await get(`/events${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as EventListPage;
  };
  const eventOf = async (record: string, type = 'booking.created') =>
    (await list(`?record=${record}&type=${type}`)).items[0].id;

  it('lists events newest first, filtered by type (with booking.*) and record, page after page', async () => {
    await wp.put('bookings', 1, booking());
    await wp.put('bookings', 2, booking());
    await wp.put('bookings', 1, booking({ status: 'canceled' }));
    const all = await list('?type=booking.*');
    expect(all.items.map((e) => [e.type, e.record])).toEqual([
      ['booking.canceled', 'booking:1'], ['booking.updated', 'booking:1'],
      ['booking.created', 'booking:2'], ['booking.created', 'booking:1'],
    ]);
    expect(all.next).toBeNull();
    expect((await list('?type=booking.created')).items.map((e) => e.record)).toEqual(['booking:2', 'booking:1']);
    expect((await list('?type=booking.*&record=booking:1')).items).toHaveLength(3);
    expect((await list('?type=customer.created')).items.map((e) => e.record)).toEqual(['customer:1000000000000000']);

    const first = await list('?type=booking.*&perpage=3');
    expect(first.items).toHaveLength(3);
    const rest = await list(`?type=booking.*&perpage=3&after=${first.next}`);
    expect(rest.items.map((e) => e.id)).toEqual([all.items[3].id]);
    expect(rest.next).toBeNull();
  });

  it('answers 400 naming the parameter, and 404 for an unknown event', async () => {
    for (const [query, parameter] of [['type=booking.deleted', 'type'], ['record=trip:1', 'record'],
      ['after=nope', 'after'], ['perpage=500', 'perpage']]) {
      const res = await get(`/events?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().parameter, query).toBe(parameter);
    }
    expect((await get('/events/evt_0000000000000000000000000000')).statusCode).toBe(404);
    expect((await post('/events/evt_0000000000000000000000000000/send', { webhook_id: 'wh_x' })).statusCode)
      .toBe(404);
    expect((await get('/events')).headers['cache-control']).toBe('no-store');
    expect((await app.inject({ method: 'GET', url: '/admin/api/events' })).statusCode).toBe(401);
  });

  it('says, for each webhook, what happened to an event: delivered, skipped by its filter, not subscribed…',
    async () => {
    const all = await create({ name: 'All bookings' });
    const trip8 = await create({ name: 'Trip 8 only', filter: { field: 'data.trips[].trip_id', eq: 8 } });
    const payments = await create({ name: 'Payments', events: ['booking.payment.completed'] });
    const off = await create({ name: 'Off' });
    await post(`/webhooks/${off.id}/disable`, {});
    await wp.put('bookings', 1, booking()); // its trip is 7
    const id = await eventOf('booking:1');
    const later = await create({ name: 'Later' });
    const deleted = await create({ name: 'Deleted' });
    await app.inject({ method: 'DELETE', url: `/admin/api/webhooks/${deleted.id}`, headers: auth });

    const res = await get(`/events/${id}`);
    expect(res.statusCode).toBe(200);
    const detail = res.json() as EventDetail;
    expect(detail.envelope).toMatchObject({ id, type: 'booking.created', data: { id: 1 } });
    expect(detail.record).toBe('booking:1');
    expect(detail.webhooks.map((w) => [w.webhook_name, w.outcome])).toEqual([
      ['All bookings', 'pending'], ['Trip 8 only', 'skipped_by_filter'], ['Payments', 'not_subscribed'],
      ['Off', 'disabled'], ['Later', 'created_later'],
    ]);
    const delivery = detail.webhooks[0].deliveries[0];
    await attemptDelivery(wp.core, delivery.id);
    const after = (await get(`/events/${id}`)).json() as EventDetail;
    expect(after.webhooks[0]).toMatchObject({ webhook_id: all.id, outcome: 'succeeded',
      deliveries: [{ id: delivery.id, status: 'succeeded', last_status: 200 }] });
    expect(after.webhooks.map((w) => w.webhook_id)).toEqual([all.id, trip8.id, payments.id, off.id, later.id]);
  });

  it('sends a stored event to a webhook its filter skipped: the receiver gets the same envelope', async () => {
    const trip8 = await create({ filter: { field: 'data.trips[].trip_id', eq: 8 } });
    await wp.put('bookings', 1, booking());
    const id = await eventOf('booking:1');
    const res = await post(`/events/${id}/send`, { webhook_id: trip8.id });
    expect(res.statusCode, res.body).toBe(201);
    const sent = res.json() as { id: string; event_id: string; webhook_id: string; status: string };
    expect(sent).toMatchObject({ event_id: id, webhook_id: trip8.id, status: 'pending' });
    await attemptDelivery(wp.core, sent.id);
    expect(receiver.received).toHaveLength(1);
    expect(JSON.parse(receiver.received[0].body)).toMatchObject({ id, type: 'booking.created', data: { id: 1 } });
    expect(receiver.received[0].headers['webhook-id']).toBe(id);
    const detail = (await get(`/events/${id}`)).json() as EventDetail;
    expect(detail.webhooks[0]).toMatchObject({ outcome: 'succeeded', deliveries: [{ id: sent.id }] });
  });

  it('refuses to send to a disabled (409) or deleted or unknown (404) webhook, and names a missing webhook_id',
    async () => {
    const hook = await create({});
    await wp.put('bookings', 1, booking());
    const id = await eventOf('booking:1');
    await post(`/webhooks/${hook.id}/disable`, {});
    const disabled = await post(`/events/${id}/send`, { webhook_id: hook.id });
    expect(disabled.statusCode).toBe(409);
    expect(disabled.json()).toMatchObject({ code: 'webhook_disabled' });
    expect(disabled.json().detail).toContain('disabled');
    await app.inject({ method: 'DELETE', url: `/admin/api/webhooks/${hook.id}`, headers: auth });
    expect((await post(`/events/${id}/send`, { webhook_id: hook.id })).statusCode).toBe(404);
    expect((await post(`/events/${id}/send`, { webhook_id: 'wh_unknown' })).statusCode).toBe(404);
    const missing = await post(`/events/${id}/send`, {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json().field).toBe('webhook_id');
    const count = await wp.core.db.selectFrom('deliveries').select((eb) => eb.fn.countAll().as('n'))
      .where('event_id', '=', id).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1); // the one the write queued (cancelled by the disable), nothing more
  });

  it('a send racing a disable never leaves a pending delivery to the disabled webhook', async () => {
    await wp.put('bookings', 1, booking());
    const id = await eventOf('booking:1');
    for (let round = 0; round < 4; round++) {
      const hook = await create({ name: `Race ${round}`, events: ['review.created'] });
      const [sent] = await Promise.all([
        post(`/events/${id}/send`, { webhook_id: hook.id }),
        post(`/webhooks/${hook.id}/disable`, {}),
      ]);
      expect([201, 409]).toContain(sent.statusCode);
      const pending = await wp.core.db.selectFrom('deliveries').select('id').where('webhook_id', '=', hook.id)
        .where('status', '=', 'pending').execute();
      expect(pending).toEqual([]);
    }
  });

  it('shows and sends a test event, which the list (like the feed) leaves out', async () => {
    const hook = await create({});
    const test = await post(`/webhooks/${hook.id}/test`, {});
    const eventId = test.json().event_id as string;
    expect((await list('')).items).toEqual([]);
    const detail = (await get(`/events/${eventId}`)).json() as EventDetail;
    expect(detail.test).toBe(true);
    expect(detail.webhooks[0].outcome).toBe('succeeded');
    const again = await post(`/events/${eventId}/send`, { webhook_id: hook.id });
    expect(again.statusCode).toBe(201);
  });
});
