// Concurrent host writes against a running server (real HTTP, many requests in flight at once): no 5xx for any
// mix of writes, and an outcome equal to some serial order (one booking.created per id, one customer per new
// e-mail, one payment event per completed payment). On PostgreSQL a second server on the same database races too.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS, freshDatabaseUrl } from '../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import { createWaypost, type Waypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { ASSIGNED_ID_MIN } from '../../src/records/schemas.js';
import { parseImportLine } from '../../src/host/import.js';
import { createApiKey } from '../../src/api/keys.js';
import { apiRoot } from '../../src/config.js';
import { addWebhook, booking, payment } from '../webhooks/engine/fixtures.js';

interface Server {
  wp: Waypost;
  app: FastifyInstance;
  base: string;
}

async function serve(wp: Waypost): Promise<Server> {
  const app = await wp.app();
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { wp, app, base };
}

async function put(base: string, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}/host/v1/${path}`, {
    method: 'PUT', headers: { ...HOST_AUTH, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

describe.each(DIALECTS)('concurrent Host API writes on %s', (dialect) => {
  let servers: Server[];
  let wp: Waypost;
  beforeEach(async () => {
    const databaseUrl = await freshDatabaseUrl(dialect);
    const open = () => createWaypost({
      env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true', WAYPOST_HOST_TOKEN: 'test-host-token' },
      logger: createLogger('silent'), config: { databaseUrl },
    });
    wp = await open();
    servers = [await serve(wp)];
    // On PostgreSQL a second server races too: its own pool on the same database, as another process would.
    if (dialect === 'postgres') servers.push(await serve(await open()));
    await addWebhook(wp.core, 'http://127.0.0.1:9/unused');
  });
  afterEach(async () => {
    for (const s of servers) await s.wp.close();
  });

  const baseFor = (i: number) => servers[i % servers.length].base;
  const events = async (type: string) => (await wp.core.db.selectFrom('events').select(['record_id'])
    .where('type', '=', type).execute()).map((r) => Number(r.record_id)).sort((a, b) => a - b);

  it('many PUTs of the same new ids at once: no 5xx, one 201 and one booking.created per id', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => 200 + i);
    const calls = ids.flatMap((id) => Array.from({ length: 6 }, (_, k) => ({ id, k })));
    const answers = await Promise.all(calls.map(({ id, k }) => put(baseFor(k), `bookings/${id}`, booking({
      // Half the ids share one e-mail, the rest have their own: new embedded customers race as well.
      customer: { email: id % 2 ? `guest${id}@example.com` : 'shared@example.com', first_name: 'G', last_name: 'X' },
    })).then((r) => ({ id, ...r }))));
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    for (const id of ids) {
      const forId = answers.filter((a) => a.id === id);
      expect(forId.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    }
    expect(await events('booking.created')).toEqual(ids);
    const customers = await wp.core.db.selectFrom('customers').select(['id', 'email']).orderBy('id').execute();
    expect(customers.map((c) => c.email).sort()).toEqual(
      [...ids.filter((id) => id % 2).map((id) => `guest${id}@example.com`), 'shared@example.com'].sort(),
    );
    expect(customers.every((c) => Number(c.id) >= ASSIGNED_ID_MIN)).toBe(true);
    expect((await events('customer.created')).length).toBe(customers.length);
    // Every booking links to the customer of its own e-mail.
    const rows = await wp.core.db.selectFrom('bookings').select(['id', 'customer_id', 'customer_email']).execute();
    const byId = new Map(customers.map((c) => [Number(c.id), c.email]));
    for (const r of rows) expect(byId.get(Number(r.customer_id))).toBe(r.customer_email);
  });

  it('payments of one booking and updates of that booking at once: no 5xx, each payment completes once', async () => {
    expect((await put(baseFor(0), 'bookings/101', booking())).status).toBe(201);
    const payIds = Array.from({ length: 16 }, (_, i) => 5001 + i);
    const writes = [
      ...payIds.map((id, i) => () => put(baseFor(i), `payments/${id}`, payment({ status: 'completed' }))),
      ...payIds.map((id, i) => () => put(baseFor(i + 1), `payments/${id}`, payment({ status: 'completed' }))),
      // The same booking body again and again: its payment_ids change under it, which is not a booking change.
      ...Array.from({ length: 16 }, (_, i) => () => put(baseFor(i), 'bookings/101', booking())),
    ];
    const answers = await Promise.all(writes.map((w) => w()));
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    expect(await events('booking.payment.completed')).toEqual(payIds);
    expect(await events('booking.updated')).toEqual([]);
    const res = await fetch(`${baseFor(0)}/host/v1/bookings/101`, { method: 'PUT', headers: { ...HOST_AUTH,
      'content-type': 'application/json' }, body: JSON.stringify(booking()) });
    expect((await res.json()).record.payment_ids).toEqual(payIds);
  });

  it(
    'customer writes, deletes and bookings that embed them, all at once: every answer is 2xx or a clear 4xx',
    async () => {
      const writes: Array<() => Promise<{ status: number }>> = [];
      for (let i = 0; i < 10; i++) {
        writes.push(() => put(baseFor(i), `customers/${300 + (i % 3)}`, { email: `c${i % 3}@example.com` }));
        writes.push(() => put(baseFor(i + 1), `bookings/${400 + i}`, booking({
          customer: { id: 300 + (i % 3), email: `c${i % 3}@example.com` },
        })));
        writes.push(() =>
          fetch(`${baseFor(i)}/host/v1/payments/${600 + (i % 2)}`, { method: 'DELETE', headers: HOST_AUTH }),
        );
        writes.push(() => put(baseFor(i), `payments/${600 + (i % 2)}`, payment({ booking_id: 400 + i })));
      }
      const answers = await Promise.all(writes.map((w) => w()));
      expect(answers.filter((a) => a.status >= 500)).toEqual([]);
      expect(answers.every((a) => [200, 201, 204, 404].includes(a.status))).toBe(true);
      expect(await events('customer.created')).toEqual([300, 301, 302]);
    },
  );
});

describe.each(DIALECTS)('ids Waypost assigns on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  beforeEach(async () => {
    wp = await testWaypost({ dialect });
    app = await wp.app();
  });
  afterEach(async () => wp.close());

  it('a new embedded customer gets an id from Waypost\'s range, which a host PUT can never overwrite', async () => {
    await addWebhook(wp.core, 'http://127.0.0.1:9/unused');
    const first = await app.inject({
      method: 'PUT', url: '/host/v1/bookings/101', headers: HOST_AUTH, payload: booking(),
    });
    const assigned = first.json().record.customer.id;
    expect(assigned).toBe(ASSIGNED_ID_MIN);
    // The host's own customer 1 (and every small id) is a different person, created as such.
    const own = await app.inject({
      method: 'PUT', url: '/host/v1/customers/1', headers: HOST_AUTH, payload: { email: 'bo@example.com' },
    });
    expect(own.statusCode).toBe(201);
    const overwrite = await app.inject({
      method: 'PUT', url: `/host/v1/customers/${assigned}`, headers: HOST_AUTH, payload: { email: 'eve@example.com' },
    });
    expect(overwrite.statusCode).toBe(400);
    expect(overwrite.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'id' });
    expect(overwrite.json().detail).toContain('assigned by Waypost');
    const key = await createApiKey(wp.core, { label: 'k', permissions: ['customers.read'] });
    const read = await app.inject({ url: `${apiRoot(wp.config)}/customers/${assigned}`,
      headers: { 'access-token': key.key, 'access-secret': key.secret } });
    expect(read.json()).toMatchObject({ id: assigned, email: 'ana@example.com', booking_ids: [101] });
    const second = await app.inject({ method: 'PUT', url: '/host/v1/bookings/102', headers: HOST_AUTH,
      payload: booking({ customer: { email: 'cy@example.com' } }) });
    expect(second.json().record.customer.id).toBe(ASSIGNED_ID_MIN + 1);
    const created = await wp.core.db.selectFrom('events').select('record_id')
      .where('type', '=', 'customer.created').execute();
    expect(created.map((r) => Number(r.record_id)).sort()).toEqual([1, ASSIGNED_ID_MIN, ASSIGNED_ID_MIN + 1]);
  });

  it(
    'a booking written back with its assigned customer id links that customer; an unknown one in the range is 400',
    async () => {
      const first = await app.inject({
        method: 'PUT', url: '/host/v1/bookings/101', headers: HOST_AUTH, payload: booking(),
      });
      const customer = first.json().record.customer;
      const back = await app.inject({
        method: 'PUT', url: '/host/v1/bookings/101', headers: HOST_AUTH, payload: booking({ customer }),
      });
      expect(back.statusCode).toBe(200);
      expect(back.json().record.customer.id).toBe(customer.id);
      const unknown = await app.inject({ method: 'PUT', url: '/host/v1/bookings/103', headers: HOST_AUTH,
        payload: booking({ customer: { id: ASSIGNED_ID_MIN + 50, email: 'x@example.com' } }) });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json().field).toBe('customer.id');
      expect(await wp.core.db.selectFrom('bookings').select('id').where('id', '=', 103).executeTakeFirst())
        .toBeUndefined();
      // The host may still delete a customer Waypost made.
      const del = await app.inject({ method: 'DELETE', url: `/host/v1/customers/${customer.id}`, headers: HOST_AUTH });
      expect(del.statusCode).toBe(204);
    },
  );

  it('the SDK and the importer refuse ids from Waypost\'s range too', async () => {
    await expect(wp.put('customers', ASSIGNED_ID_MIN + 7, { email: 'z@example.com' }))
      .rejects.toMatchObject({ status: 400 });
    const line = JSON.stringify({ type: 'customer', id: ASSIGNED_ID_MIN + 7, data: { email: 'z@example.com' } });
    expect(() => parseImportLine(line)).toThrow(/id must be below 1000000000000000/);
    expect(parseImportLine(line.replace(String(ASSIGNED_ID_MIN + 7), String(ASSIGNED_ID_MIN - 1))).id)
      .toBe(ASSIGNED_ID_MIN - 1);
  });
});
