// What an update tells a receiver (issue 36, items 2 and 4): `booking.updated` carries `previous_attributes` (the
// changed fields' values before the write, computed in the write's transaction, as Stripe's events do), and a status
// that becomes canceled or completed is also its own event, fired beside booking.updated.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../helpers/db.js';
import { testWaypost } from '../../helpers/waypost.js';
import type { Waypost } from '../../../src/sdk.js';
import { DeliveryWorker } from '../../../src/webhooks/index.js';
import { previousAttributes } from '../../../src/webhooks/events.js';
import { addWebhook, booking } from './fixtures.js';
import { startReceiver, type Receiver } from './receiver.js';

describe('previousAttributes', () => {
  it('keeps only what changed: changed keys of an object, a changed array whole, a removed field, an added one', () => {
    const before = { status: 'booked', total: '10.00', customer: { email: 'a@x.pt', phone: '1' }, trips: [1, 2],
      gone: 1 };
    const after = { status: 'booked', total: '12.00', customer: { email: 'a@x.pt', phone: '2' }, trips: [1, 3],
      added: 2 };
    expect(previousAttributes(before, after)).toEqual({
      total: '10.00', customer: { phone: '1' }, trips: [1, 2], gone: 1, added: null,
    });
  });
});

describe.each(DIALECTS)('update events on %s', (dialect) => {
  let wp: Waypost;
  let receiver: Receiver;
  beforeEach(async () => {
    wp = await testWaypost({ dialect, env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' } });
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await wp.close();
    await receiver.close();
  });

  /** The envelopes the receiver got, in the order the events were made. */
  const received = async () => {
    await new DeliveryWorker(wp.core).drain();
    const bodies = receiver.requests.map((r) => JSON.parse(r.raw.toString('utf8')) as Record<string, unknown>);
    return bodies.sort((a, b) => String(a.id).localeCompare(String(b.id)));
  };

  it('booking.updated carries the changed fields with their old values, and only those', async () => {
    await addWebhook(wp.core, receiver.url, { events: ['booking.updated'] });
    await wp.put('bookings', 101, booking({ updated_at: '2027-01-01T00:00:00Z' }));
    const customer = { email: 'ana@example.com', first_name: 'Ana', last_name: 'Silva-Costa' };
    await wp.put('bookings', 101, booking({ paid_amount: '1250.00', customer, updated_at: '2027-01-02T00:00:00Z' }));
    const [update] = await received();
    expect(update.type).toBe('booking.updated');
    expect(update.previous_attributes).toEqual({
      paid_amount: '250.00', due_amount: '1000.00', customer: { last_name: 'Silva' },
      updated_at: '2027-01-01T00:00:00.000Z',
    });
    expect(update.data).toMatchObject({ paid_amount: '1250.00', customer: { last_name: 'Silva-Costa' } });
  });

  it('a status that becomes canceled or completed fires its own event beside booking.updated', async () => {
    await addWebhook(wp.core, receiver.url, { events: ['booking.updated', 'booking.canceled', 'booking.completed'] });
    await wp.put('bookings', 101, booking());
    await wp.put('bookings', 101, booking({ status: 'canceled' }));
    await wp.put('bookings', 101, booking({ status: 'canceled', paid_amount: '0.00' })); // still canceled
    await wp.put('bookings', 102, booking({ status: 'completed' })); // first seen completed: created only
    await wp.put('bookings', 102, booking({ status: 'booked' }));
    await wp.put('bookings', 102, booking({ status: 'completed' }));
    const got = (await received()).map((e) => [e.type, (e.data as { id: number }).id, e.previous_attributes]);
    expect(got.map(([type, id]) => `${String(type)} ${String(id)}`)).toEqual([
      'booking.updated 101', 'booking.canceled 101', 'booking.updated 101',
      'booking.updated 102', 'booking.updated 102', 'booking.completed 102',
    ]);
    expect(got[1][2]).toMatchObject({ status: 'booked' });
    expect(got[5][2]).toMatchObject({ status: 'booked' });
  });

  it('hands previous_attributes to filters.webhookPayload, which sees and may keep it', async () => {
    await wp.close();
    const seen: unknown[] = [];
    wp = await testWaypost({
      dialect, env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' },
      filters: { webhookPayload: (payload) => { seen.push(payload); return { ...payload, tenant: 'acme' }; } },
    });
    await addWebhook(wp.core, receiver.url, { events: ['booking.updated'] });
    await wp.put('bookings', 101, booking());
    await wp.put('bookings', 101, booking({ paid_amount: '1250.00' }));
    const [update] = await received();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ type: 'booking.updated', previous_attributes: { paid_amount: '250.00' } });
    expect(update).toMatchObject({ tenant: 'acme', previous_attributes: { paid_amount: '250.00' } });
  });

  it('a booking.created has no previous_attributes', async () => {
    await addWebhook(wp.core, receiver.url, { events: ['booking.created'] });
    await wp.put('bookings', 101, booking());
    const [created] = await received();
    expect(created.type).toBe('booking.created');
    expect(created).not.toHaveProperty('previous_attributes');
  });
});
