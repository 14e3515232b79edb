// Events from host writes: which of the 9 kinds fire, exactly once, with the record as the API shows it, in the
// same transaction as the write.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { putMany } from '../../../src/host/write.js';
import { addWebhook, booking, payment } from './fixtures.js';
import { ASSIGNED_ID_MIN } from '../../../src/records/schemas.js';

const PAYMENT_EVENTS = ['booking.payment.completed', 'booking.due.payment.completed'];

describe.each(DIALECTS)('events from host writes on %s', (dialect) => {
  let wp: Waypost;
  beforeEach(async () => {
    wp = await testWaypost({ dialect });
  });
  afterEach(async () => wp.close());

  const events = async () => wp.core.db.selectFrom('events').selectAll().orderBy('id').execute();
  const types = async () => (await events()).map((e) => e.type);
  // Every event is stored (the feed keeps them all): what a test looks at is the events of these types.
  const eventsOf = async (wanted: string[]) => (await events()).filter((e) => wanted.includes(e.type));
  const typesOf = async (wanted: string[]) => (await eventsOf(wanted)).map((e) => e.type);
  const deliveries = async () => wp.core.db.selectFrom('deliveries').selectAll().orderBy('id').execute();

  it('a new booking fires booking.created and customer.created for its new embedded customer, with API-shaped data',
    async () => {
    await addWebhook(wp.core, 'http://127.0.0.1:9/hook');
    const res = await (await wp.app())
      .inject({ method: 'PUT', url: '/host/v1/bookings/101', headers: HOST_AUTH, payload: booking() });
    expect(res.statusCode).toBe(201);
    const rows = await events();
    expect(rows.map((e) => e.type).sort()).toEqual(['booking.created', 'customer.created']);
    const created = rows.find((e) => e.type === 'booking.created')!;
    expect(JSON.parse(created.data)).toEqual(res.json().record);
    expect(JSON.parse(rows.find((e) => e.type === 'customer.created')!.data))
      .toMatchObject({ id: ASSIGNED_ID_MIN, email: 'ana@example.com' });
    const queued = await deliveries();
    expect(queued).toHaveLength(2);
    expect(queued.every((d) => d.status === 'pending' && d.attempts === 0)).toBe(true);
  });

  it('booking.updated fires only on a real change, not on a repeated PUT or a new updated_at alone', async () => {
    await addWebhook(wp.core, 'http://127.0.0.1:9/hook', { events: ['booking.updated'] });
    await wp.put('bookings', 101, booking());
    await wp.put('bookings', 101, booking());
    await wp.put('bookings', 101, booking({ updated_at: '2027-01-01T00:00:00Z' }));
    expect(await typesOf(['booking.updated'])).toEqual([]);
    const changed = await wp.put('bookings', 101, booking({ status: 'completed', updated_at: '2027-01-01T00:00:00Z' }));
    expect(await typesOf(['booking.updated'])).toEqual(['booking.updated']);
    expect(JSON.parse((await eventsOf(['booking.updated']))[0].data)).toEqual(changed.record);
  });

  it('a payment fires booking.payment.completed on the transition to completed, once', async () => {
    await addWebhook(wp.core, 'http://127.0.0.1:9/hook',
      { events: ['booking.payment.completed', 'booking.due.payment.completed'] });
    await wp.put('bookings', 101, booking());
    await wp.put('payments', 5, payment());
    expect(await typesOf(PAYMENT_EVENTS)).toEqual([]);
    const done = await wp.put('payments', 5, payment({ status: 'completed' }));
    await wp.put('payments', 5, payment({ status: 'completed', transaction_id: 'tx_1' }));
    await wp.put('payments', 5, payment({ status: 'refunded' }));
    await wp.put('payments', 5, payment({ status: 'completed' }));
    const rows = await eventsOf(PAYMENT_EVENTS);
    expect(rows.map((e) => e.type)).toEqual(['booking.payment.completed']);
    expect(JSON.parse(rows[0].data)).toEqual(done.record);
  });

  it('a payment fires when it becomes paid by the product\'s notion of paid, never while waiting', async () => {
    await addWebhook(wp.core, 'http://127.0.0.1:9/hook', { events: PAYMENT_EVENTS });
    await wp.put('bookings', 101, booking());
    // [status before (null: a new payment), status after, fires]; spellings are stored as the status they mean.
    const table: Array<[string | null, string, boolean]> = [
      [null, 'completed', true], [null, 'captured', true], [null, 'partially-paid', true],
      [null, 'check-received', true], [null, 'voucher-received', true],
      [null, 'pending', false], [null, 'check-waiting', false], [null, 'voucher-waiting', false],
      [null, 'failed', false], [null, 'canceled', false], [null, 'refunded', false], [null, 'abandoned', false],
      ['pending', 'completed', true], ['pending', 'captured', true], ['pending', 'partially-paid', true],
      ['check-waiting', 'check-received', true], ['voucher-waiting', 'voucher-received', true],
      ['failed', 'completed', true], ['abandoned', 'captured', true], ['canceled', 'completed', true],
      ['pending', 'check-waiting', false], ['pending', 'voucher-waiting', false], ['check-waiting', 'failed', false],
      ['voucher-waiting', 'canceled', false], ['pending', 'refunded', false], ['pending', 'abandoned', false],
      ['partially-paid', 'completed', false], ['captured', 'completed', false], ['check-received', 'completed', false],
      ['voucher-received', 'refunded', false], ['completed', 'partially-paid', false],
      ['pending', 'complete', true], ['pending', 'success', true], ['pending', 'settlement', true],
      ['pending', 'capture', true], ['voucher-awaiting', 'voucher-received', true], ['pending', 'cancelled', false],
      ['pending', 'deny', false], ['pending', 'expire', false], ['pending', 'revoked', false],
    ];
    const fired: Array<[string | null, string, boolean]> = [];
    for (const [i, [from, to]] of table.entries()) {
      const id = 1000 + i;
      if (from !== null) await wp.put('payments', id, payment({ status: from }));
      const before = (await events()).length;
      await wp.put('payments', id, payment({ status: to }));
      const after = await events();
      fired.push([from, to, after.length > before]);
      if (after.length > before) {
        expect(after.at(-1)).toMatchObject({ type: 'booking.payment.completed', record_id: id });
      }
    }
    expect(fired).toEqual(table);
  });

  it('a payment completes once, whichever paid statuses it passes through', async () => {
    await addWebhook(wp.core, 'http://127.0.0.1:9/hook', { events: PAYMENT_EVENTS });
    await wp.put('bookings', 101, booking());
    const statuses = ['check-waiting', 'check-received', 'completed', 'refunded', 'captured', 'failed', 'completed'];
    for (const status of statuses) {
      await wp.put('payments', 7, payment({ status }));
    }
    expect(await typesOf(PAYMENT_EVENTS)).toEqual(['booking.payment.completed']);
    expect(JSON.parse((await eventsOf(PAYMENT_EVENTS))[0].data)).toMatchObject({ id: 7, status: 'check-received' });
    // A due payment waiting for its voucher fires the due event when the voucher is received.
    await wp.put('payments', 8, payment({ status: 'voucher-waiting', is_due_payment: true }));
    await wp.put('payments', 8, payment({ status: 'voucher-received', is_due_payment: true }));
    expect(await typesOf(PAYMENT_EVENTS)).toEqual(['booking.payment.completed', 'booking.due.payment.completed']);
  });

  it('a due payment fires booking.due.payment.completed instead', async () => {
    await addWebhook(wp.core, 'http://127.0.0.1:9/hook');
    await wp.put('bookings', 101, booking());
    await wp.put('payments', 6, payment({ status: 'completed', is_due_payment: true }));
    expect((await types()).filter((t) => t.includes('payment'))).toEqual(['booking.due.payment.completed']);
  });

  it('customers, enquiries and reviews fire their created events once', async () => {
    await addWebhook(wp.core, 'http://127.0.0.1:9/hook');
    await wp.put('customers', 9, { email: 'bo@example.com' });
    await wp.put('customers', 9, { email: 'bo@example.com', first_name: 'Bo' });
    await wp.put('enquiries', 1, { full_name: 'Cy', email: 'cy@example.com', message: 'Is May good?' });
    await wp.put('reviews', 1, { trip_id: 7, author_name: 'Di', rating: 5 });
    await wp.put('reviews', 1, { trip_id: 7, author_name: 'Di', rating: 4 });
    expect(await types()).toEqual(['customer.created', 'enquiry.created', 'review.created']);
  });

  it('queues one delivery per active subscribed webhook, none for inactive, deleted or unsubscribed ones', async () => {
    const a = await addWebhook(wp.core, 'http://127.0.0.1:9/a', { events: ['enquiry.created'] });
    const b = await addWebhook(wp.core, 'http://127.0.0.1:9/b');
    await addWebhook(wp.core, 'http://127.0.0.1:9/c', { active: false });
    await addWebhook(wp.core, 'http://127.0.0.1:9/d', { events: ['review.created'] });
    const deleted = await addWebhook(wp.core, 'http://127.0.0.1:9/e');
    await wp.core.db.updateTable('webhooks').set({ deleted_at: new Date().toISOString() }).where('id', '=', deleted.id)
      .execute();
    await wp.put('enquiries', 1, { full_name: 'Cy', email: 'cy@example.com' });
    const rows = await deliveries();
    expect(rows.map((d) => d.webhook_id).sort()).toEqual([a.id, b.id].sort());
    expect(new Set(rows.map((d) => d.event_id)).size).toBe(1);
    expect(rows.every((d) => d.event_type === 'enquiry.created')).toBe(true);
  });

  it('stores an event nobody subscribes to (for the feed), with no delivery; none for legacy bookings or bulk import',
    async () => {
    await wp.put('enquiries', 1, { full_name: 'Cy', email: 'cy@example.com' });
    expect(await types()).toEqual(['enquiry.created']);
    expect(await deliveries()).toEqual([]);
    await wp.core.db.deleteFrom('events').execute();
    await addWebhook(wp.core, 'http://127.0.0.1:9/hook', { events: ['booking.created', 'booking.updated'] });
    await wp.put('bookings', 50, booking({ engine_version: '6.2.0', customer: null }));
    await wp.put('bookings', 50, booking({ engine_version: '6.2.0', customer: null, status: 'completed' }));
    expect(await types()).toEqual([]);
    await putMany(wp.core, [{ resource: 'bookings', id: 51, input: booking({ customer: null }) as never }],
      { events: false });
    expect(await types()).toEqual([]);
    await wp.put('bookings', 52, booking({ customer: null }));
    expect(await types()).toEqual(['booking.created']);
  });

  it('rolls events and deliveries back with a write that fails', async () => {
    await addWebhook(wp.core, 'http://127.0.0.1:9/hook');
    wp.core.writeListeners.push(async () => { throw new Error('boom'); });
    await expect(wp.put('enquiries', 1, { full_name: 'Cy', email: 'cy@example.com' })).rejects.toThrow('boom');
    expect(await types()).toEqual([]);
    expect(await deliveries()).toEqual([]);
    expect(await wp.core.db.selectFrom('enquiries').selectAll().execute()).toEqual([]);
  });
});
