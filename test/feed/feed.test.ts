// GET /events: every event, subscribed or not, as the very envelope a webhook carries (same bytes, the event id as
// `webhook-id`), oldest first, filtered by type patterns, record and time, resumable exactly, newest first on
// request, and 400 naming the parameter for bad input, 410 for a position older than the retention.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { apiFixture, booking, fakeClock, parseLinks, relative, type ApiFixture } from '../api/setup.js';
import { createWebhook } from '../../src/webhooks/manage.js';
import { buildRequest } from '../../src/webhooks/delivery/request.js';

const DAY = 86_400_000;
const enquiry = (n: number) => ({ full_name: `Cy ${n}`, email: `cy${n}@example.com` });

describe.each(DIALECTS)('the event feed on %s', (dialect) => {
  let f: ApiFixture;
  const clock = fakeClock();
  beforeEach(async () => {
    clock.set(Date.parse('2026-03-01T10:00:00Z'));
    f = await apiFixture(dialect, { clock });
  });
  afterEach(async () => f.wp.close());

  const ids = (res: { json(): unknown }) => (res.json() as Array<{ id: string }>).map((e) => e.id);

  it('keeps every event whatever the subscriptions and serves the envelope a webhook carries', async () => {
    const hook = await createWebhook(f.wp.core, { name: 'CRM', url: 'https://example.com/h',
      events: ['booking.created'] });
    await f.wp.put('enquiries', 1, enquiry(1)); // nobody subscribes to enquiry.created
    clock.advance(1000);
    await f.wp.put('bookings', 7, booking({ customer: null }));
    const res = await f.get('/events');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const events = res.json() as Array<{ id: string; type: string; data: { id: number } }>;
    expect(events.map((e) => [e.type, e.data.id])).toEqual([['enquiry.created', 1], ['booking.created', 7]]);

    // The delivery's request: the same body bytes, the event id as webhook-id.
    const delivery = await f.wp.core.db.selectFrom('deliveries').selectAll().executeTakeFirstOrThrow();
    const event = await f.wp.core.db.selectFrom('events').selectAll().where('id', '=', delivery.event_id)
      .executeTakeFirstOrThrow();
    const webhook = await f.wp.core.db.selectFrom('webhooks').selectAll().where('id', '=', hook.id)
      .executeTakeFirstOrThrow();
    const sent = await buildRequest(f.wp.core, { delivery, webhook, event, attempt: 1 });
    expect(sent.headers['webhook-id']).toBe(events[1].id);
    expect(JSON.stringify(events[1])).toBe(sent.body);
    const one = await f.get(`/events/${events[1].id}`);
    expect(one.statusCode).toBe(200);
    expect(one.body).toBe(sent.body);
    expect((await f.get('/events/evt_0000000000000000000000000000')).statusCode).toBe(404);
  });

  it('filters by type patterns, record and time; pages resume exactly; order=desc is newest first', async () => {
    for (let n = 1; n <= 5; n++) {
      await f.wp.put('enquiries', n, enquiry(n));
      clock.advance(1000);
      await f.wp.put('bookings', n, booking({ customer: null, status: 'pending' }));
      clock.advance(1000);
    }
    await f.wp.put('bookings', 3, booking({ customer: null, status: 'canceled' }));
    const all = ids(await f.get('/events?perpage=100'));
    expect(all).toHaveLength(12);
    expect([...all].sort()).toEqual(all);

    const booked = (await f.get('/events?types=booking.*&perpage=100')).json() as Array<{ type: string }>;
    expect(booked.map((e) => e.type)).toEqual([...Array(5).fill('booking.created'), 'booking.updated',
      'booking.canceled']);
    const two = (await f.get('/events?types=booking.canceled,enquiry.created&perpage=100')).json() as
      Array<{ type: string }>;
    expect(two.map((e) => e.type)).toEqual([...Array(5).fill('enquiry.created'), 'booking.canceled']);
    const record = (await f.get('/events?record=booking:3')).json() as Array<{ type: string; data: { id: number } }>;
    expect(record.map((e) => e.type)).toEqual(['booking.created', 'booking.updated', 'booking.canceled']);
    expect(ids(await f.get('/events?since=2026-03-01T10:00:02Z&until=2026-03-01T10:00:03Z'))).toEqual(all.slice(2, 4));

    // Following next, 4 at a time, hands out every event once, in order; an id resumes like a cursor.
    const seen: string[] = [];
    let path: string | undefined = '/events?perpage=4';
    for (let i = 0; i < 5 && path; i++) {
      const res = await f.get(path);
      seen.push(...ids(res));
      path = ids(res).length > 0 ? relative(parseLinks(res.headers.link).next, f.root) : undefined;
    }
    expect(seen).toEqual(all);
    expect(ids(await f.get(`/events?after=${all[9]}`))).toEqual(all.slice(10));

    const desc = await f.get('/events?order=desc&perpage=5');
    expect(ids(desc)).toEqual([...all].reverse().slice(0, 5));
    const older = await f.get(relative(parseLinks(desc.headers.link).next, f.root));
    expect(ids(older)).toEqual([...all].reverse().slice(5, 10));
  });

  it('answers 400 naming the parameter, and 410 for a position older than the retention', async () => {
    await f.wp.put('enquiries', 1, enquiry(1));
    const [first] = ids(await f.get('/events'));
    const bad: Array<[string, string]> = [
      ['after=nope', 'after'], ['types=booking.nope', 'types'], ['types=bookings.*', 'types'], ['wait=0', 'wait'],
      ['wait=31', 'wait'], ['consumer=crm', 'consumer'], ['record=trip:1', 'record'], ['perpage=101', 'perpage'],
      ['since=yesterday', 'since'], ['order=sideways', 'order'],
    ];
    for (const [query, parameter] of bad) {
      const res = await f.get(`/events?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().parameter, query).toBe(parameter);
    }
    const desc = await f.get(`/events?order=desc`);
    const ascCursor = new URL(parseLinks((await f.get('/events')).headers.link).next).searchParams.get('after');
    expect((await f.get(`/events?order=desc&after=${ascCursor}`)).json().parameter).toBe('after');
    expect(desc.statusCode).toBe(200);

    clock.advance(31 * DAY);
    const gone = await f.get(`/events?after=${first}`);
    expect(gone.statusCode).toBe(410);
    expect(gone.json()).toMatchObject({ code: 'cursor_expired', parameter: 'after' });
    expect(gone.json().detail).toContain('30 days');
  });

  it('needs events.list (and events.read for one event)', async () => {
    const { createApiKey } = await import('../../src/api/keys.js');
    const key = await createApiKey(f.wp.core, { label: 'bookings only', permissions: ['bookings.list'] });
    const headers = { 'access-token': key.key, 'access-secret': key.secret };
    const res = await f.get('/events', headers);
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toContain('events.list');
    expect((await f.get('/events/evt_0000000000000000000000000000', headers)).json().detail).toContain('events.read');
  });
});
