// The privacy doors other than the host API's erasure (erase.test.ts): the admin API (preview, erase, list, export),
// the export's document, bad input (a 4xx naming the problem, nothing recorded), an erasure by customer id, and many
// erasures of one person at once beside other writes, against a listening server. On both databases.
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { DeliveryWorker } from '../../src/webhooks/index.js';
import { addWebhook } from '../webhooks/engine/fixtures.js';
import { startReceiver, type Receiver } from '../webhooks/engine/receiver.js';
import { adminHeaders } from '../webhooks/manage/fixtures.js';

const EMAIL = 'mara.lindqvist@example.se';

async function seedPerson(wp: Waypost): Promise<void> {
  await wp.put('customers', 11, { email: EMAIL, first_name: 'Mara', last_name: 'Lindqvist',
    phone: '+46 70 123 45 67' });
  await wp.put('bookings', 21, { status: 'booked', currency: 'SEK', total_amount: '9900.00',
    customer: { id: 11, email: EMAIL, first_name: 'Mara', last_name: 'Lindqvist' },
    engine_version: '6.8.0', cart_version: '4.1' });
  await wp.put('payments', 31, { booking_id: 21, status: 'completed', amount: '9900.00', currency: 'SEK' });
  await wp.put('enquiries', 41, { full_name: 'Mara Lindqvist', email: 'MARA.LINDQVIST@example.se' });
  await wp.put('reviews', 51, { trip_id: 7, author_name: 'Mara Lindqvist', content: 'Fine.' });
  await wp.put('customers', 12, { email: 'someone.else@example.com', first_name: 'Some', last_name: 'Else' });
}

describe.each(DIALECTS)('privacy doors on %s', (dialect) => {
  let wp: Waypost | null = null;
  let receiver: Receiver | null = null;
  afterEach(async () => {
    await wp?.close();
    await receiver?.close();
    wp = null;
    receiver = null;
  });

  async function open(): Promise<{ app: FastifyInstance; auth: Record<string, string>; hookId: string }> {
    wp = await testWaypost({ dialect });
    receiver = await startReceiver();
    const hook = await addWebhook(wp.core, receiver.url, { name: 'CRM' });
    await seedPerson(wp);
    await new DeliveryWorker(wp.core).drain();
    return { app: await wp.app(), auth: await adminHeaders(wp), hookId: hook.id };
  }

  it('previews, exports and erases through the admin API, and lists the erasure', async () => {
    const { app, auth, hookId } = await open();
    const post = (url: string, payload: Record<string, unknown>) =>
      app.inject({ method: 'POST', url: `/admin/api/privacy/${url}`, headers: auth, payload });

    const preview = (await post('preview', { email: EMAIL })).json();
    expect(preview).toMatchObject({ customers: 1, bookings: 1, enquiries: 1, reviews: 1,
      webhooks: [{ id: hookId, name: 'CRM', deliveries: preview.events }] });
    expect(preview.events).toBe(4); // customer.created, booking.created, enquiry.created, review.created

    const exported = (await post('exports', { email: EMAIL.toUpperCase() })).json();
    expect(exported.subject).toEqual({ email: EMAIL, customer_id: null });
    expect(exported.records.customers).toMatchObject([{ id: 11, email: EMAIL, booking_ids: [21] }]);
    expect(exported.records.bookings).toMatchObject([{ id: 21, payment_ids: [31] }]);
    expect(exported.records.payments).toMatchObject([{ id: 31, amount: '9900.00' }]);
    expect(exported.records.enquiries).toMatchObject([{ id: 41, full_name: 'Mara Lindqvist' }]);
    expect(exported.records.reviews).toMatchObject([{ id: 51, author_name: 'Mara Lindqvist' }]);
    expect(exported.deliveries).toHaveLength(4);
    expect(exported.deliveries[0]).toMatchObject({ webhook: { id: hookId, name: 'CRM' }, status: 'succeeded',
      attempts: 1 });
    expect(JSON.stringify(exported)).not.toContain('someone.else');

    const started = await post('erasures', { email: EMAIL });
    expect(started.statusCode).toBe(202);
    expect(started.headers.location).toBe(`/admin/api/privacy/erasures/${started.json().id}`);
    const get = async () => (await app.inject({ url: started.headers.location as string, headers: auth })).json();
    await expect.poll(async () => (await get()).status, { timeout: 15_000 }).toBe('succeeded');
    expect(await get()).toMatchObject({ requested_by: 'admin', counts: { customers: 1, bookings: 1, enquiries: 1,
      reviews: 1, events: 4, deliveries: 4, attempts: 4 }, webhooks: [{ id: hookId, deliveries: 4 }] });
    const list = (await app.inject({ url: '/admin/api/privacy/erasures', headers: auth })).json();
    expect(list.items.map((e: { id: string }) => e.id)).toEqual([started.json().id]);
    expect(JSON.stringify(list)).not.toContain(EMAIL);

    // The audit log: who erased and exported, when and from where; the person only as a hash.
    const audit = (await app.inject({ url: '/admin/api/audit', headers: auth })).json();
    const byAction = (a: string) => audit.items.filter((e: { action: string }) => e.action === a);
    expect(byAction('person.erased')).toMatchObject([{ actor_type: 'admin', actor: 'admin token',
      target_type: 'erasure', target_id: started.json().id, details: { email_sha256: preview.email_sha256 } }]);
    expect(byAction('person.exported')).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(EMAIL);

    const after = (await post('exports', { email: EMAIL })).json();
    expect(after.records).toEqual({ customers: [], bookings: [], payments: [], enquiries: [], reviews: [] });
    expect(after.deliveries).toEqual([]);
    expect((await wp!.core.db.selectFrom('reviews').select('data').where('id', '=', 51).executeTakeFirstOrThrow())
      .data).toContain('"author_name":"Anonymous"');
  });

  it('answers bad input with a 400 naming the problem, and records nothing', async () => {
    const { app, auth } = await open();
    const cases: Array<[unknown, string]> = [
      [{}, 'missing_person'], [{ email: 'not-an-address' }, 'invalid_parameter'],
      [{ customer_id: -3 }, 'invalid_parameter'], [{ email: EMAIL, phone: '1' }, 'invalid_parameter'],
      [[EMAIL], 'missing_person'], [{ email: 42 }, 'invalid_parameter'],
    ];
    for (const [payload, code] of cases) {
      for (const [url, headers] of [['/host/v1/erasures', HOST_AUTH], ['/host/v1/exports', HOST_AUTH],
        ['/admin/api/privacy/erasures', auth], ['/admin/api/privacy/preview', auth]] as const) {
        const res = await app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
        expect(res.statusCode, `${url} ${JSON.stringify(payload)}`).toBe(400);
        expect(res.json().code, `${url} ${JSON.stringify(payload)}`).toBe(code);
      }
    }
    expect((await app.inject({ method: 'POST', url: '/host/v1/erasures', payload: { email: EMAIL } })).statusCode)
      .toBe(401);
    expect((await app.inject({ url: '/host/v1/erasures/ers_nope', headers: HOST_AUTH })).statusCode).toBe(404);
    expect(await wp!.core.db.selectFrom('erasures').selectAll().execute()).toEqual([]);
    expect(await wp!.core.db.selectFrom('customers').select('id').where('id', '=', 11).execute()).toHaveLength(1);
  });

  it('erases by customer id alone, finding the rest by the customer\'s e-mail', async () => {
    const { app } = await open();
    const res = await app.inject({ method: 'POST', url: '/host/v1/erasures', headers: HOST_AUTH,
      payload: { customer_id: 11 } });
    expect(res.statusCode).toBe(202);
    expect(res.json().email_sha256).toBeNull();
    const get = async () => (await app.inject({ url: `/host/v1/erasures/${res.json().id}`, headers: HOST_AUTH }))
      .json();
    await expect.poll(async () => (await get()).status, { timeout: 15_000 }).toBe('succeeded');
    expect((await get()).counts).toMatchObject({ customers: 1, bookings: 1, enquiries: 1, reviews: 1 });
    const left = await wp!.core.db.selectFrom('customers').select('email').execute();
    expect(left.map((c) => c.email)).toEqual(['someone.else@example.com']);
  });

  it('takes many erasures of one person at once beside other writes: one customer.erased, nothing lost', async () => {
    await open();
    const { url } = await wp!.serve('api');
    const post = (path: string, body: unknown, method = 'POST') => fetch(`${url}/host/v1/${path}`, {
      method, headers: { ...HOST_AUTH, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, () => post('erasures', { email: EMAIL })),
      ...Array.from({ length: 12 }, (_, i) => post(`customers/${100 + i}`,
        { email: `guest${i}@example.com`, first_name: `Guest${i}` }, 'PUT')),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(12).fill(201), ...Array(8).fill(202)]);
    const ids = await Promise.all(answers.slice(0, 8).map(async (a) => ((await a.json()) as { id: string }).id));
    await expect.poll(async () => {
      const rows = await wp!.core.db.selectFrom('erasures').select('status').where('id', 'in', ids).execute();
      return rows.filter((r) => r.status === 'succeeded').length;
    }, { timeout: 30_000 }).toBe(8);
    const erasedEvents = await wp!.core.db.selectFrom('events').select('record_id')
      .where('type', '=', 'customer.erased').execute();
    expect(erasedEvents.map((e) => Number(e.record_id))).toEqual([11]);
    const customers = await wp!.core.db.selectFrom('customers').select('id').orderBy('id').execute();
    expect(customers.map((c) => Number(c.id))).toEqual([12, ...Array.from({ length: 12 }, (_, i) => 100 + i)]);
  });
});
