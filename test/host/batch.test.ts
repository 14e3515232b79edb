// POST /host/v1/batch: the WordPress bridge's backfill. Each operation is the single PUT/DELETE (same validation,
// same events through the same outbox); a bad one gets its own 400 and the others go on.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { ASSIGNED_ID_MIN } from '../../src/records/schemas.js';
import { addWebhook, booking, payment } from '../webhooks/engine/fixtures.js';

describe.each(DIALECTS)('Host API batch on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  beforeEach(async () => {
    wp = await testWaypost({ dialect });
    app = await wp.app();
  });
  afterEach(async () => wp.close());

  const batch = (operations: unknown, headers: Record<string, string> = HOST_AUTH) =>
    app.inject({ method: 'POST', url: '/host/v1/batch', headers, payload: { operations } });
  const eventTypes = async () =>
    (await wp.core.db.selectFrom('events').select(['type', 'record_id']).orderBy('id').execute())
      .map((e) => `${e.type} ${e.record_id}`);

  it('runs puts and deletes in order, one result per operation, firing the events single writes do', async () => {
    await addWebhook(wp.core, 'http://127.0.0.1:9/hook');
    await wp.put('enquiries', 9, { full_name: 'Old', email: 'old@example.com' });
    const res = await batch([
      { op: 'put', resource: 'trips', id: 7, data: { title: 'Douro Valley' } },
      { op: 'put', resource: 'bookings', id: 101, data: booking() },
      { op: 'put', resource: 'payments', id: '5', data: payment({ status: 'check-waiting' }) },
      { op: 'put', resource: 'payments', id: 5, data: payment({ status: 'check-received' }) },
      { op: 'put', resource: 'bookings', id: 101, data: booking() },
      { op: 'put', resource: 'bookings', id: 102, data: booking({ total_amount: 'lots' }) },
      { op: 'put', resource: 'reviews', id: 3, data: { trip_id: 7, author_name: 'Di', rating: null } },
      { op: 'delete', resource: 'enquiries', id: 9 },
      { op: 'delete', resource: 'enquiries', id: 9 },
      { op: 'put', resource: 'enquiries', id: 10, data: { full_name: 'Cy', email: 'cy@example.com' } },
    ]);
    expect(res.statusCode).toBe(200);
    expect(res.json().results).toEqual([
      { index: 0, status: 201, created: true, changed: true },
      { index: 1, status: 201, created: true, changed: true },
      { index: 2, status: 201, created: true, changed: true },
      { index: 3, status: 200, created: false, changed: true },
      { index: 4, status: 200, created: false, changed: false },
      {
        index: 5, status: 400,
        error: {
          code: 'invalid_field', detail: expect.stringMatching(/^data\.total_amount /), field: 'data.total_amount',
        },
      },
      { index: 6, status: 201, created: true, changed: true },
      { index: 7, status: 204 },
      { index: 8, status: 404 },
      { index: 9, status: 201, created: true, changed: true },
    ]);
    // Exactly what the same writes one by one fire: no booking.updated for the repeat, nothing for the bad one.
    expect(await eventTypes()).toEqual([
      'enquiry.created 9',
      `customer.created ${ASSIGNED_ID_MIN}`, 'booking.created 101',
      'booking.payment.completed 5',
      'review.created 3',
      'enquiry.created 10',
    ]);
    const deliveries = await wp.core.db.selectFrom('deliveries').select('event_id').execute();
    expect(deliveries).toHaveLength(6);
    const bad = await wp.core.db.selectFrom('bookings').select('id').where('id', '=', 102).executeTakeFirst();
    expect(bad).toBeUndefined();
    const review = await app.inject({
      method: 'PUT', url: '/host/v1/reviews/3', headers: HOST_AUTH,
      payload: { trip_id: 7, author_name: 'Di', rating: null },
    });
    expect(review.json()).toMatchObject({ changed: false, record: { rating: null } });
  });

  it('gives each bad operation its own 400 naming the field, and goes on with the others', async () => {
    const res = await batch([
      'nope',
      { op: 'patch', resource: 'trips', id: 1, data: {} },
      { op: 'put', resource: 'widgets', id: 1, data: {} },
      { op: 'put', resource: 'trips', id: 0, data: { title: 'x' } },
      { op: 'put', resource: 'customers', id: ASSIGNED_ID_MIN, data: { email: 'a@example.com' } },
      { op: 'put', resource: 'trips', id: 2 },
      { op: 'put', resource: 'trips', id: 3, data: { title: 'x' }, extra: 1 },
      { op: 'put', resource: 'payments', id: 4, data: payment({ status: 'paid' }) },
      { op: 'put', resource: 'trips', id: 5, data: 'a trip' },
      { op: 'delete', resource: 'trips', id: 'abc' },
      { op: 'put', resource: 'trips', id: 6, data: { title: 'Fine' } },
    ]);
    expect(res.statusCode).toBe(200);
    const results = res.json().results as Array<{ index: number; status: number; error?: { field?: string } }>;
    expect(results.map((r) => [r.index, r.status, r.error?.field])).toEqual([
      [0, 400, '(operation)'],
      [1, 400, 'op'],
      [2, 400, 'resource'],
      [3, 400, 'id'],
      [4, 400, 'id'],
      [5, 400, 'data'],
      [6, 400, 'extra'],
      [7, 400, 'data.status'],
      [8, 400, 'data'],
      [9, 400, 'id'],
      [10, 201, undefined],
    ]);
    expect(results[7]!.error).toMatchObject({
      code: 'invalid_field', detail: expect.stringMatching(/^data\.status must be one of: pending, completed/),
    });
    expect((await wp.core.db.selectFrom('trips').select('id').execute()).map((t) => Number(t.id))).toEqual([6]);
  });

  it('refuses a body that is not {operations: [...]} of at most 500, or has no host token', async () => {
    for (const payload of [{}, { operations: 'x' }, { operations: {} }, [], { operations: [], more: 1 }]) {
      const res = await app.inject({ method: 'POST', url: '/host/v1/batch', headers: HOST_AUTH, payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
    }
    const tooMany = await batch(Array.from({ length: 501 }, (_, i) => ({ op: 'delete', resource: 'trips', id: i })));
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toMatchObject({ code: 'batch_too_large', field: 'operations' });
    expect(tooMany.json().detail).toContain('at most 500');
    const missing = await app.inject({ method: 'POST', url: '/host/v1/batch', payload: { operations: [] } });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().code).toBe('missing_host_token');
    expect((await batch([], { authorization: 'Bearer nope' })).json().code).toBe('invalid_host_token');
    expect((await batch([])).json()).toEqual({ results: [] });
  });

  it('takes 500 operations with full bookings (over the 1 MiB default body limit)', async () => {
    const lineItems = Array.from({ length: 10 }, (_, j) => ({
      label: `${'x'.repeat(250)} ${j}`, quantity: 1, price: '125.00', total: '125.00',
    }));
    const operations = Array.from({ length: 500 }, (_, i) => ({
      op: 'put', resource: 'bookings', id: i + 1,
      data: booking({ customer: { id: 9, email: 'ana@example.com' }, trips: [{ trip_id: 7, line_items: lineItems }] }),
    }));
    expect(JSON.stringify({ operations }).length).toBeGreaterThan(1024 * 1024);
    const res = await batch(operations);
    expect(res.statusCode).toBe(200);
    expect(res.json().results.every((r: { status: number }) => r.status === 201)).toBe(true);
    const n = await wp.core.db.selectFrom('bookings').select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(500);
  });

  it('is in the SDK too', async () => {
    const results = await wp.batch([
      { op: 'put', resource: 'trips', id: 1, data: { title: 'Douro' } },
      { op: 'delete', resource: 'trips', id: 2 },
    ]);
    expect(results).toEqual([{ index: 0, status: 201, created: true, changed: true }, { index: 1, status: 404 }]);
  });
});
