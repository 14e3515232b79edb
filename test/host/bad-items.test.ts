// Issue 29 item 5: an engine_version or cart_version of 23 digits passed the schema and then failed the semver
// comparison, a 500; inside a batch the operations before it stayed written and the ones after it never ran. The
// versions are bounded (a 400 naming the field), and a batch goes on past any operation that fails on its own.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { isCompleteCart, isLegacyEngine } from '../../src/records/normalize.js';
import { booking } from '../webhooks/engine/fixtures.js';

const HUGE = '99999999999999999999999';

describe.each(DIALECTS)('Bad items on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  beforeEach(async () => {
    wp = await testWaypost({ dialect });
    app = await wp.app();
  });
  afterEach(async () => wp.close());

  const bookingIds = async () => (await wp.core.db.selectFrom('bookings').select('id').orderBy('id').execute())
    .map((b) => Number(b.id));

  it('answers a PUT with a 23-digit engine_version or cart_version 400 naming the field', async () => {
    for (const field of ['engine_version', 'cart_version']) {
      for (const value of [HUGE, '1.99999999999999999999', '6.8.0.1', '']) {
        const res = await app.inject({ method: 'PUT', url: '/host/v1/bookings/1', headers: HOST_AUTH,
          payload: booking({ [field]: value }) });
        expect(res.statusCode, `${field}=${value}`).toBe(400);
        expect(res.json()).toMatchObject({ code: 'invalid_field', field });
        expect(res.json().detail).toMatch(new RegExp(`^${field} must match pattern`));
      }
    }
    // The longest versions the schema takes still compare (no write can fail after validation).
    const longest = '999999999.999999999.999999999';
    const res = await app.inject({ method: 'PUT', url: '/host/v1/bookings/1', headers: HOST_AUTH,
      payload: booking({ engine_version: longest, cart_version: longest }) });
    expect(res.statusCode).toBe(201);
    expect([isLegacyEngine(longest), isCompleteCart(longest)]).toEqual([false, true]);
    expect(await bookingIds()).toEqual([1]);
  });

  it('goes on past a bad version in the middle of a batch: the operations after it run', async () => {
    const res = await app.inject({ method: 'POST', url: '/host/v1/batch', headers: HOST_AUTH, payload: { operations: [
      { op: 'put', resource: 'bookings', id: 1, data: booking() },
      { op: 'put', resource: 'bookings', id: 2, data: booking({ engine_version: HUGE }) },
      { op: 'put', resource: 'bookings', id: 3, data: booking({ cart_version: HUGE }) },
      { op: 'put', resource: 'bookings', id: 4, data: booking() },
      { op: 'put', resource: 'trips', id: 5, data: { title: 'Douro' } },
    ] } });
    expect(res.statusCode).toBe(200);
    const results = res.json().results as Array<{ status: number; error?: { field: string; code: string } }>;
    expect(results.map((r) => [r.status, r.error?.field])).toEqual([
      [201, undefined], [400, 'data.engine_version'], [400, 'data.cart_version'], [201, undefined], [201, undefined],
    ]);
    expect(await bookingIds()).toEqual([1, 4]);
  });

  it('gives an operation that fails on a fault of ours its own 500 and runs the ones after it', async () => {
    // A fault only one record's data reaches (as the version comparison was): here a listener that throws for it.
    wp.core.writeListeners.push(async (_trx, change) => {
      if (change.resource === 'bookings' && change.id === 2) throw new TypeError('cannot read this booking');
    });
    const res = await app.inject({ method: 'POST', url: '/host/v1/batch', headers: HOST_AUTH, payload: { operations: [
      { op: 'put', resource: 'bookings', id: 1, data: booking() },
      { op: 'put', resource: 'bookings', id: 2, data: booking() },
      { op: 'put', resource: 'bookings', id: 3, data: booking() },
    ] } });
    expect(res.statusCode).toBe(200);
    expect(res.json().results).toEqual([
      { index: 0, status: 201, created: true, changed: true },
      { index: 1, status: 500, error: { code: 'internal_error', detail: expect.stringContaining('logged') } },
      { index: 2, status: 201, created: true, changed: true },
    ]);
    // The failed operation's transaction was rolled back: nothing of it is stored.
    expect(await bookingIds()).toEqual([1, 3]);
  });
});
