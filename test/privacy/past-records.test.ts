// An erasure follows a person into what no record names any more: the events (and the deliveries that carried them)
// of a booking or an enquiry the host deleted, of a customer deleted before an erasure by customer id, and of a
// booking that names another customer now (up to the change: what came after is the other person's). And a host
// write that names the person while the erasure runs is erased with it, and so is a send that was in flight then
// (recorded after the erasure's own steps). On both databases.
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import type { ServerResponse } from 'node:http';
import type { Waypost } from '../../src/sdk.js';
import { DeliveryWorker } from '../../src/webhooks/index.js';
import { erasePerson } from '../../src/privacy/erase.js';
import { addWebhook } from '../webhooks/engine/fixtures.js';
import { startReceiver, type Receiver } from '../webhooks/engine/receiver.js';

const ANA = { email: 'ana.past@example.org', first_name: 'Anaïs', last_name: 'Pastorek', phone: '+33 6 12 34 56 78' };
const BEN = { email: 'ben.now@example.org', first_name: 'Benedikt', last_name: 'Nowakowski' };
const HERS = [ANA.email, 'Pastorek', '12 34 56 78'];
const HIS = [BEN.email, 'Nowakowski'];

const booking = (customer: Record<string, unknown>, status = 'booked') => ({
  status, currency: 'EUR', total_amount: '800.00', customer, engine_version: '6.8.0', cart_version: '4.1',
});

describe.each(DIALECTS)('erasing what no record names any more, on %s', (dialect) => {
  let wp: Waypost | null = null;
  let receiver: Receiver | null = null;
  afterEach(async () => {
    await wp?.close();
    await receiver?.close();
    wp = receiver = null;
  });

  async function open() {
    wp = await testWaypost({ dialect });
    receiver = await startReceiver();
    await addWebhook(wp.core, receiver.url);
    const app = await wp.app();
    const write = async (method: 'PUT' | 'DELETE', path: string, payload?: object) => {
      const res = await app.inject({ method, url: `/host/v1/${path}`, headers: HOST_AUTH, payload });
      expect(res.statusCode, res.body).toBeLessThan(300);
    };
    const stored = async () => {
      const events = await wp!.core.db.selectFrom('events').select(['data', 'previous_attributes']).execute();
      const attempts = await wp!.core.db.selectFrom('delivery_attempts').select(['request_body']).execute();
      return JSON.stringify([events, attempts]);
    };
    const found = (text: string, needles: string[]) => needles.filter((n) => text.includes(n));
    return { app, write, stored, found };
  }

  it('erases the events of deleted records and of a booking given to another customer, up to the change',
    async () => {
      const { app, write, stored, found } = await open();
      await write('PUT', 'customers/601', ANA);
      await write('PUT', 'bookings/1101', booking({ id: 601, ...ANA }));
      await write('PUT', 'enquiries/3101', { full_name: 'Anaïs Pastorek', email: ANA.email, phone: ANA.phone });
      await write('PUT', 'bookings/1102', booking({ id: 601, ...ANA }));
      // The site deletes her booking and enquiry, and gives booking 1102 to Ben, then deletes her customer record.
      await write('DELETE', 'bookings/1101');
      await write('DELETE', 'enquiries/3101');
      await write('PUT', 'customers/602', BEN);
      await write('PUT', 'bookings/1102', booking({ id: 602, ...BEN }, 'completed'));
      await write('DELETE', 'customers/601');
      await new DeliveryWorker(wp!.core).drain();
      expect(found(await stored(), HERS)).toEqual(HERS);

      // Her export finds the deliveries that carried her data, though no record of hers is left.
      const exported = (await app.inject({ method: 'POST', url: '/host/v1/exports', headers: HOST_AUTH,
        payload: { email: ANA.email } })).json();
      expect(exported.records.customers).toEqual([]);
      expect(exported.deliveries.map((d: { event_type: string }) => d.event_type).sort()).toEqual(['booking.completed',
        'booking.created', 'booking.created', 'booking.updated', 'customer.created', 'enquiry.created']);

      const started = await app.inject({ method: 'POST', url: '/host/v1/erasures', headers: HOST_AUTH,
        payload: { email: ANA.email } });
      const job = async () => (await app.inject({ url: started.headers.location as string, headers: HOST_AUTH }))
        .json();
      await expect.poll(async () => (await job()).status, { timeout: 15_000 }).toBe('succeeded');
      expect((await job()).counts).toMatchObject({ customers: 0, bookings: 0, events: 6, deliveries: 6 });
      expect(found(await stored(), HERS)).toEqual([]);
      // Ben's booking is his: the record, and its events since it named him (the change's own event is hers too).
      const his = await wp!.core.db.selectFrom('bookings').select('data').where('id', '=', 1102).executeTakeFirst();
      expect(found(his!.data, HIS)).toEqual(HIS);
      expect(found(await stored(), HIS)).toEqual(HIS); // customer.created of 602
      expect(await wp!.core.db.selectFrom('past_subjects').select('id').where('record_id', 'in', [601, 1101, 1102,
        3101]).execute()).toEqual([]);
    });

  it('erases only her time on a booking that named Xavier, then her, then Ben; and her deleted review', async () => {
    const { app, write, stored, found } = await open();
    const XAVIER = { email: 'xavier.before@example.org', first_name: 'Xavier', last_name: 'Beforehand' };
    await write('PUT', 'customers/631', ANA);
    await write('PUT', 'bookings/1131', booking({ ...XAVIER }));
    await write('PUT', 'bookings/1131', booking({ id: 631, ...ANA }, 'canceled'));
    await write('PUT', 'bookings/1131', booking({ ...BEN }, 'pending'));
    await write('PUT', 'reviews/4131', { trip_id: 7, author_name: 'Anaïs Pastorek', content: 'Très bien.' });
    await write('DELETE', 'reviews/4131');
    await new DeliveryWorker(wp!.core).drain();
    expect(found(await stored(), [...HERS, 'Beforehand', 'Très bien'])).toEqual([...HERS, 'Beforehand', 'Très bien']);
    const types = async () => (await wp!.core.db.selectFrom('events').select(['type', 'data'])
      .where('resource', '=', 'bookings').orderBy('id').execute())
      .map((e) => `${e.type} ${JSON.parse(e.data).customer?.last_name ?? '-'}`);
    const before = await types();

    const started = await app.inject({ method: 'POST', url: '/host/v1/erasures', headers: HOST_AUTH,
      payload: { email: ANA.email } });
    const job = async () => (await app.inject({ url: started.headers.location as string, headers: HOST_AUTH }))
      .json();
    await expect.poll(async () => (await job()).status, { timeout: 15_000 }).toBe('succeeded');
    expect(found(await stored(), HERS)).toEqual([]);
    // Xavier's booking.created is whole; the two changes' own events (each names her) are erased; Ben's last
    // record is whole. The review's words are not hers to erase; its author's name is.
    expect(before[0]).toBe('booking.created Beforehand');
    expect((await types())[0]).toBe('booking.created Beforehand');
    const text = await stored();
    expect(found(text, ['Xavier', 'Beforehand', 'Très bien'])).toEqual(['Xavier', 'Beforehand', 'Très bien']);
    expect(found(text, ['Anaïs'])).toEqual([]);
  });

  it('erases a deleted customer\'s events when asked by customer id, and her review found by the name they gave',
    async () => {
    const { app, write, stored, found } = await open();
    await write('PUT', 'customers/605', ANA);
    await write('PUT', 'reviews/4605', { trip_id: 7, author_name: 'Anaïs Pastorek', content: 'Superbe.' });
    await write('DELETE', 'customers/605');
    expect(found(await stored(), HERS)).toEqual(HERS);
    const started = await app.inject({ method: 'POST', url: '/host/v1/erasures', headers: HOST_AUTH,
      payload: { customer_id: 605 } });
    const job = async () => (await app.inject({ url: started.headers.location as string, headers: HOST_AUTH }))
      .json();
    await expect.poll(async () => (await job()).status, { timeout: 15_000 }).toBe('succeeded');
    expect((await job()).counts).toMatchObject({ events: 2, reviews: 1 });
    expect(found(await stored(), [...HERS, 'Anaïs'])).toEqual([]);
    const review = await wp!.core.db.selectFrom('reviews').select('data').where('id', '=', 4605).executeTakeFirst();
    expect(JSON.parse(review!.data)).toMatchObject({ author_name: 'Anonymous', content: 'Superbe.' });
  });

  it('erases the attempt of a send that was in flight during the erasure, once it is recorded', async () => {
    wp = await testWaypost({ dialect });
    const held: ServerResponse[] = [];
    let released = false;
    // The receiver echoes what it got, but only once the erasure has done all its steps (then at once: the
    // customer.erased event comes too).
    receiver = await startReceiver((req, res) => {
      const contact = /"email":"([^"]+)"/.exec(req.raw.toString())?.[1] ?? 'none';
      res.on('release', () => res.writeHead(200, { 'x-contact': contact }).end(req.raw));
      if (released) res.emit('release');
      else held.push(res);
    });
    await addWebhook(wp.core, receiver.url);
    await wp.put('customers', 621, ANA);
    const worker = new DeliveryWorker(wp.core);
    const sending = worker.drain();
    await expect.poll(() => held.length, { timeout: 10_000 }).toBe(1);
    const erased = await erasePerson(wp.core, { email: ANA.email, customerId: null }, {
      async step(step) {
        if (step !== 'compacting') return;
        setTimeout(() => {
          released = true;
          for (const res of held) res.emit('release');
        }, 100);
      },
    });
    await sending;
    expect(erased.counts).toMatchObject({ customers: 1, deliveries: 1 });
    const attempts = await wp.core.db.selectFrom('delivery_attempts')
      .select(['request_body', 'response_body', 'response_headers', 'success']).orderBy('id').execute();
    expect(attempts).toHaveLength(2); // hers, and the customer.erased event's
    expect(attempts[0]).toMatchObject({ success: 1, response_body: null, response_headers: null });
    expect(HERS.filter((n) => JSON.stringify(attempts).includes(n))).toEqual([]);
  });

  it('erases an update of her booking whose event is older than the erasure but committed after its search',
    async () => {
      let skew = 0;
      wp = await testWaypost({ dialect, clock: { now: () => Date.now() + skew } });
      const app = await wp.app();
      await app.inject({ method: 'PUT', url: '/host/v1/customers/641', headers: HOST_AUTH, payload: ANA });
      await app.inject({ method: 'PUT', url: '/host/v1/bookings/1141', headers: HOST_AUTH,
        payload: booking({ id: 641, ...ANA }) });
      let raced = false;
      await erasePerson(wp.core, { email: ANA.email, customerId: null }, {
        async step(step) {
          if (step !== 'deliveries' || raced) return;
          raced = true;
          // A slow host write: its event was stamped before the erasure began, its commit comes after the search.
          skew = -60_000;
          const res = await app.inject({ method: 'PUT', url: '/host/v1/bookings/1141', headers: HOST_AUTH,
            payload: booking({ id: 641, ...ANA, phone: '+33 6 12 34 56 78' }, 'canceled') });
          skew = 0;
          expect(res.statusCode, res.body).toBe(200);
        },
      });
      const events = await wp.core.db.selectFrom('events').select(['data', 'previous_attributes']).execute();
      expect(events.length).toBeGreaterThanOrEqual(4);
      expect(HERS.filter((n) => JSON.stringify(events).includes(n))).toEqual([]);
    });

  it('erases a booking that names the person, written while the erasure runs', async () => {
    const { write, stored, found } = await open();
    await write('PUT', 'customers/611', ANA);
    let raced = false;
    // Right after the erasure looked for her: the host sends a new booking of hers (and her customer again).
    const erased = await erasePerson(wp!.core, { email: ANA.email, customerId: null }, {
      async step(step) {
        if (step !== 'records' || raced) return;
        raced = true;
        await write('PUT', 'bookings/1111', booking({ email: ANA.email, first_name: 'Anaïs', last_name: 'Pastorek' }));
      },
    });
    expect(raced).toBe(true);
    expect(erased.counts).toMatchObject({ customers: 1, bookings: 1 });
    expect(found(await stored(), HERS)).toEqual([]);
    const rows = await wp!.core.db.selectFrom('bookings').select('data').where('id', '=', 1111).execute();
    expect(rows.map((r) => JSON.parse(r.data).customer)).toEqual([null]);
    expect(await wp!.core.db.selectFrom('customers').select('id').execute()).toEqual([]);
  });
});
