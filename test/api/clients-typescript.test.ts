// A typed client made from the served OpenAPI document alone, as docs/api.md tells a user to: openapi-typescript
// generates the types, openapi-fetch calls the API. The client program below must type-check under
// `tsc --strict` (and misuses must not) and then read every endpoint of a running, demo-seeded Waypost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { apiRoot } from '../../src/config.js';
import { createApiKey, PERMISSIONS, type CreatedApiKey } from '../../src/api/keys.js';
import { seedDemo } from '../../src/demo/seed.js';
import type { Waypost } from '../../src/sdk.js';
import { testWaypost } from '../helpers/waypost.js';

const sh = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const bin = (name: string) => join(ROOT, 'node_modules/.bin', name);

// What a user writes: every read of the API, through the generated `paths` (the API root is part of each path,
// since the document's server is the bare base URL).
const CLIENT = `
import createClient from 'openapi-fetch';
import type { components, paths } from './waypost-api.js';

type Booking = components['schemas']['Booking'];
const [baseUrl, token, secret] = process.argv.slice(2) as [string, string, string];
const client = createClient<paths>({ baseUrl, headers: { 'Access-Token': token, 'Access-Secret': secret } });

function must<T>(answer: { data?: T; response: Response }, what: string): T {
  if (answer.data === undefined) throw new Error(\`\${what}: \${answer.response.status}\`);
  return answer.data;
}
const summary = (b: Booking) => ({ id: b.id, status: b.status, customer: b.customer?.id ?? null });

const test = must(await client.GET('/rest/waypost/api/v1/test'), 'test');
const bookingsAnswer = await client.GET('/rest/waypost/api/v1/bookings', {
  params: { query: { customer_id: 26, status: 'booked', perpage: 100 } },
});
const bookings = must(bookingsAnswer, 'listBookings');
const byId = (id: number) => ({ params: { path: { id } } });
const booking = must(await client.GET('/rest/waypost/api/v1/bookings/{id}', byId(1001)), 'getBooking');
const trips = must(await client.GET('/rest/waypost/api/v1/trips', { params: { query: { search: 'douro' } } }),
  'listTrips');
const trip = must(await client.GET('/rest/waypost/api/v1/trips/{id}', byId(1)), 'getTrip');
const customers = must(await client.GET('/rest/waypost/api/v1/customers', {
  params: { query: { email: 'diego.novak@example.com' } },
}), 'listCustomers');
const customer = must(await client.GET('/rest/waypost/api/v1/customers/{id}', byId(26)), 'getCustomer');
const payments = must(await client.GET('/rest/waypost/api/v1/payments', {
  params: { query: { booking_id: 1001, order: 'asc' } },
}), 'listPayments');
const payment = must(await client.GET('/rest/waypost/api/v1/payments/{id}', byId(5001)), 'getPayment');
// A legacy booking is absent: the error is the typed problem document.
const legacy = await client.GET('/rest/waypost/api/v1/bookings/{id}', byId(1008));

console.log(JSON.stringify({
  test: { ok: test.ok, key: test.key },
  bookings: bookings.map(summary),
  bookingsTotal: bookingsAnswer.response.headers.get('X-Total-Count'),
  booking: { ...summary(booking), trips: booking.trips.map((t) => t.title), paid: booking.paid_amount },
  trips: trips.map((t) => t.title),
  trip: { id: trip.id, title: trip.title },
  customers: customers.map((c) => c.email),
  customer: { id: customer.id, name: \`\${customer.first_name} \${customer.last_name}\` },
  payments: payments.map((p) => ({ id: p.id, booking: p.booking_id, amount: p.amount })),
  payment: { id: payment.id, status: payment.status },
  legacy: { status: legacy.response.status, code: legacy.error?.code },
}));

// Never called: each line must be a type error, or tsc fails on the unused directive (the types are not loose).
export function misuses() {
  // @ts-expect-error: not a booking status
  void client.GET('/rest/waypost/api/v1/bookings', { params: { query: { status: 'shipped' } } });
  // @ts-expect-error: not a parameter of this list
  void client.GET('/rest/waypost/api/v1/trips', { params: { query: { customer_id: 26 } } });
  // @ts-expect-error: the path id is required
  void client.GET('/rest/waypost/api/v1/payments/{id}', { params: {} });
  // @ts-expect-error: no such path
  void client.GET('/rest/waypost/api/v1/invoices');
  // @ts-expect-error: a trip has no e-mail
  void client.GET('/rest/waypost/api/v1/trips/{id}', { params: { path: { id: 1 } } }).then((a) => a.data?.email);
}
`;

describe('a client generated with openapi-typescript + openapi-fetch', () => {
  let wp: Waypost;
  let url: string;
  let key: CreatedApiKey;
  let dir: string;

  beforeAll(async () => {
    wp = await testWaypost({ config: { port: 0, host: '127.0.0.1' } });
    url = (await wp.serve('api')).url!;
    await seedDemo(wp.core);
    key = await createApiKey(wp.core, { label: 'typed client', permissions: [...PERMISSIONS] });
    // A project of its own, resolving openapi-fetch and @types/node from ours.
    dir = mkdtempSync(join(tmpdir(), 'waypost-client-'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    writeFileSync(join(dir, 'client.ts'), CLIENT);
    // The example of docs/api.md too, as a user would paste it.
    const doc = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
    const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
    const example = blocks.find((c) => c.includes('createClient<paths>'));
    writeFileSync(join(dir, 'readme.ts'), example!);
  }, 120_000);
  afterAll(async () => wp?.close());

  it('generates from the served document, with the operation ids as names', async () => {
    const served = `${url}${apiRoot(wp.config)}/openapi.json`;
    await sh(bin('openapi-typescript'), [served, '-o', join(dir, 'waypost-api.d.ts')]);
    const schema = readFileSync(join(dir, 'waypost-api.d.ts'), 'utf8');
    for (const id of ['test', 'listBookings', 'getBooking', 'listTrips', 'getTrip', 'listCustomers', 'getCustomer',
      'listPayments', 'getPayment']) {
      expect(schema).toContain(`get: operations["${id}"]`);
    }
    // The examples travel with the types, as documentation.
    expect(schema).toMatch(/@example 1001/);
  }, 60_000);

  it('type-checks under tsc --strict (docs/api.md\'s example too), misuses included as errors', async () => {
    const args = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext',
      '--moduleResolution', 'nodenext', '--types', 'node', 'client.ts', 'readme.ts'];
    const tsc = await sh(bin('tsc'), args, { cwd: dir }).catch((err: { stdout: string }) => ({ stdout: err.stdout }));
    expect(tsc.stdout).toBe('');
  }, 120_000);

  it('reads every endpoint of a running Waypost', async () => {
    const { stdout } = await sh(bin('tsx'), ['client.ts', url, key.key, key.secret], { cwd: dir });
    const out = JSON.parse(stdout);
    expect(out.test).toEqual({ ok: true, key: key.id });
    expect(out.bookings.length).toBeGreaterThan(0);
    expect(out.bookings.every((b: { status: string; customer: number }) => b.status === 'booked' && b.customer === 26))
      .toBe(true);
    expect(Number(out.bookingsTotal)).toBe(out.bookings.length);
    expect(out.booking).toEqual({
      id: 1001, status: 'booked', customer: 26, trips: ['Dolomites Hut-to-Hut'], paid: '5800.00',
    });
    expect(out.trips).toEqual(['Douro Valley Wine Trail']);
    expect(out.trip).toEqual({ id: 1, title: 'Douro Valley Wine Trail' });
    expect(out.customers).toEqual(['diego.novak@example.com']);
    expect(out.customer).toEqual({ id: 26, name: 'Diego Novak' });
    expect(out.payments[0]).toEqual({ id: 5001, booking: 1001, amount: '5800.00' });
    expect(out.payment).toEqual({ id: 5001, status: 'completed' });
    expect(out.legacy).toEqual({ status: 404, code: 'not_found' });
  }, 120_000);
});
