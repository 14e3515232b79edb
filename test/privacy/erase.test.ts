// Erasing a traveller (issue 34): after POST /host/v1/erasures, no byte of their e-mail, name or phone is left in
// the database (SQLite: the file, its WAL and the FTS5 shadow tables after a checkpoint; PostgreSQL: a dump), in
// Redis (every key and value), or in the server's log at any level; other people's data is untouched and the API
// still answers for the erased person's bookings. Each place is checked to hold the data before, so a check that
// could not see it cannot pass.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { DIALECTS, schemaOf } from '../helpers/db.js';
import { hasRedis, PG_URL, REDIS_URL } from '../helpers/services.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import { createLogger } from '../../src/log.js';
import { apiRoot } from '../../src/config.js';
import { createApiKey } from '../../src/api/keys.js';
import { DeliveryWorker } from '../../src/webhooks/index.js';
import type { Waypost } from '../../src/sdk.js';
import { addWebhook } from '../webhooks/engine/fixtures.js';
import { startReceiver, type Receiver } from '../webhooks/engine/receiver.js';
import { authOf } from '../api/setup.js';

const redisUp = await hasRedis();

const EMAIL = 'Janette.Roebuck@Example.com';
/** What must be gone: the e-mail (as given and lower-cased), the names, the phone. */
const NEEDLES = [EMAIL, EMAIL.toLowerCase(), 'Janette', 'Roebuck', 'janette', 'roebuck', '7700 900123'];
const OTHER = ['oskar.other@example.com', 'Oskar', 'Otherwise'];

const trip = { title: 'Douro Valley Walk', status: 'publish' };
const bookingOf = (customer: Record<string, unknown>, status = 'booked') => ({
  status, currency: 'EUR', total_amount: '1250.00', paid_amount: '250.00', customer,
  trips: [{ trip_id: 7, title: 'Douro Valley Walk', start_date: '2027-05-01', travellers: 2,
    line_items: [{ label: 'Adult', quantity: 2, price: '625.00', total: '1250.00' }] }],
  engine_version: '6.8.0', cart_version: '4.1',
});

const found = (haystack: string | Buffer, needles: readonly string[]) =>
  needles.filter((n) => (typeof haystack === 'string' ? haystack.includes(n) : haystack.includes(Buffer.from(n))));

describe.skipIf(!redisUp).each(DIALECTS)('erasing a person on %s', (dialect) => {
  let wp: Waypost | null = null;
  let receiver: Receiver | null = null;
  afterEach(async () => {
    await wp?.close();
    await receiver?.close();
    wp = null;
    receiver = null;
  });

  it('leaves none of their data in the database, Redis or the log, and keeps everyone else\'s', async () => {
    const log: string[] = [];
    const logStream = new Writable({ write(chunk, _enc, done) { log.push(String(chunk)); done(); } });
    const namespace = `t${randomBytes(5).toString('hex')}`;
    wp = await testWaypost({
      dialect, logger: createLogger('trace', logStream),
      config: { redisUrl: REDIS_URL, namespace },
      // A site's filter that names the payer in payment events: the erasure's net must find it there too.
      filters: { webhookPayload: (payload) => (String(payload.type).includes('payment')
        ? { ...payload, payer: `Janette Roebuck <${EMAIL}>` } : payload) },
    });
    const app = await wp.app();
    // The receiver answers with what it was sent, and names the contact in a header: its stored answer holds the
    // person's data too.
    receiver = await startReceiver((req, res) => {
      const contact = /"email":"([^"]+)"/.exec(req.raw.toString())?.[1] ?? 'none';
      res.writeHead(200, { 'x-contact': contact }).end(req.raw);
    });
    const hook = await addWebhook(wp.core, receiver.url);

    const put = async (path: string, payload: Record<string, unknown>) => {
      const res = await app.inject({ method: 'PUT', url: `/host/v1/${path}`, headers: HOST_AUTH, payload });
      expect(res.statusCode, res.body).toBeLessThan(300);
    };
    await put('trips/7', { ...trip, code: 'DV-1' });
    await put('customers/501', {
      email: EMAIL, first_name: 'Janette', last_name: 'Roebuck', phone: '+44 7700 900123',
      address: { line1: '1 Roebuck Lane', city: 'Leeds', country: 'GB' },
    });
    await put('bookings/1001', bookingOf({ id: 501, email: EMAIL, first_name: 'Janette', last_name: 'Roebuck',
      phone: '+44 7700 900123' }));
    // An update: its event's previous_attributes hold the old values.
    await put('bookings/1001', bookingOf({ id: 501, email: EMAIL, first_name: 'Janette', last_name: 'Roebuck',
      phone: '+44 7700 900123' }, 'canceled'));
    await put('payments/2001', { booking_id: 1001, status: 'completed', amount: '250.00', currency: 'EUR' });
    await put('enquiries/3001', { full_name: 'Janette Roebuck', email: EMAIL, phone: '+44 7700 900123',
      message: 'Please call me back.' });
    await put('reviews/4001', { trip_id: 7, author_name: 'Janette Roebuck', rating: 5, content: 'Lovely walk.' });
    // Someone else, who must keep everything.
    await put('customers/502', { email: OTHER[0], first_name: 'Oskar', last_name: 'Otherwise' });
    await put('bookings/1002', bookingOf({ id: 502, email: OTHER[0], first_name: 'Oskar', last_name: 'Otherwise' }));
    await put('reviews/4002', { trip_id: 7, author_name: 'Oskar Otherwise', content: 'Great.' });
    await new DeliveryWorker(wp.core).drain();
    expect(receiver.requests.length).toBeGreaterThanOrEqual(8);

    // API answers cached in Redis, found by search and by e-mail (those query strings reach the request log).
    const key = await createApiKey(wp.core, { label: 'bi', permissions: ['bookings.list', 'bookings.read',
      'customers.list', 'customers.read'] });
    const api = (path: string) => app.inject({ url: `${apiRoot(wp!.config)}${path}`, headers: authOf(key) });
    for (const path of ['/customers?search=janette', `/bookings?email=${encodeURIComponent(EMAIL)}`,
      '/bookings/1001', '/customers/501', '/bookings/1002']) {
      expect((await api(path)).statusCode, path).toBe(200);
    }
    const redis = new Redis(REDIS_URL);
    try {
      const redisText = async () => {
        const keys = await redis.keys(`*${namespace}*`);
        const values = await Promise.all(keys.map(async (k) => (await redis.type(k)) === 'string'
          ? redis.get(k) : ''));
        return keys.join('\n') + values.join('\n');
      };
      await expect.poll(async () => found(await redisText(), [EMAIL]).length, { timeout: 5_000 }).toBe(1);
      if (dialect === 'sqlite') {
        expect(found(await sqliteBytes(wp), NEEDLES).length).toBeGreaterThan(0);
        expect(searchTerms(wp)).toContain(ONLY_HERS);
      } else expect(found(await pgDump(wp), NEEDLES).length).toBeGreaterThan(0);

      const started = await app.inject({ method: 'POST', url: '/host/v1/erasures', headers: HOST_AUTH,
        payload: { email: EMAIL } });
      expect(started.statusCode, started.body).toBe(202);
      const id = started.json<{ id: string }>().id;
      expect(started.headers.location).toBe(`/host/v1/erasures/${id}`);
      const status = async () => (await app.inject({ url: `/host/v1/erasures/${id}`, headers: HOST_AUTH })).json();
      await expect.poll(async () => (await status()).status, { timeout: 15_000 }).toBe('succeeded');
      const erasure = await status();
      expect(erasure).toMatchObject({
        step: 'done', requested_by: 'host', customer_id: null,
        counts: { customers: 1, bookings: 1, payments: 1, enquiries: 1, reviews: 1 },
        webhooks: [{ id: hook.id, url: receiver.url, deleted: false }],
      });
      expect(erasure.email_sha256).toMatch(/^[0-9a-f]{64}$/);
      const audited = await wp.core.db.selectFrom('audit_log').selectAll().where('action', '=', 'person.erased')
        .execute();
      expect(audited).toMatchObject([{ actor_type: 'host', actor: 'host token', target_id: id }]);
      expect(erasure.counts.events).toBeGreaterThanOrEqual(5);
      expect(erasure.webhooks[0].deliveries).toBeGreaterThanOrEqual(5);

      // Checked before the API is asked again below: a new search caches its own answer (under its own words).
      expect(found(await redisText(), NEEDLES)).toEqual([]);
      if (dialect === 'sqlite') {
        const bytes = await sqliteBytes(wp);
        expect(found(bytes, NEEDLES)).toEqual([]);
        expect(found(bytes, OTHER)).toEqual(OTHER);
        expect(searchTerms(wp)).not.toContain(ONLY_HERS);
      } else {
        const dump = await pgDump(wp);
        expect(found(dump, NEEDLES)).toEqual([]);
        expect(found(dump, OTHER)).toEqual(OTHER);
      }
      // The API: the customer is gone, the booking answers without its customer, the other person is whole.
      expect((await api('/customers/501')).statusCode).toBe(404);
      const erased = (await api('/bookings/1001')).json();
      expect(erased).toMatchObject({ id: 1001, status: 'canceled', total_amount: '1250.00', customer: null,
        payment_ids: [2001] });
      expect((await api('/bookings/1002')).json().customer).toMatchObject({ email: OTHER[0], first_name: 'Oskar' });
      expect((await api('/customers?search=otherwise')).json()).toHaveLength(1);
      expect((await api('/customers?search=roebuck')).json()).toHaveLength(0);

      // Receivers subscribed to customer.erased are told, with no personal data.
      await new DeliveryWorker(wp.core).drain();
      const told = receiver.requests.map((r) => JSON.parse(r.raw.toString()) as { type: string; data: unknown })
        .filter((b) => b.type === 'customer.erased');
      expect(told).toHaveLength(1);
      expect(told[0].data).toMatchObject({ id: 501, email: '', first_name: null, booking_ids: [1001] });
      expect(found(JSON.stringify(told[0]), NEEDLES)).toEqual([]);

      await wp.close();
      wp = null;
      expect(log.length).toBeGreaterThan(20);
      expect(found(log.join(''), NEEDLES)).toEqual([]);
      expect(log.join('')).toContain('personal data erased');
    } finally {
      await redis.quit();
    }
  });
});

/**
 * Her trigram no one else's text has, and no other trigram begins with 'j' (so FTS5's prefix compression of the
 * sorted terms cannot split it): its bytes are in the index's shadow tables while any entry of hers is, even one
 * behind a tombstone, which a search no longer finds.
 */
const ONLY_HERS = 'jan';

function searchTerms(wp: Waypost): string {
  const sqlite = wp.core.store.sqlite!;
  return ['customers', 'bookings'].map((t) => (sqlite.prepare(`SELECT block FROM ${t}_fts_data`).all() as
    Array<{ block: Buffer }>).map((r) => r.block.toString('latin1')).join('')).join('');
}

/** The SQLite file, its WAL and shared memory, as bytes (after the erasure's checkpoint, nothing is left out). */
async function sqliteBytes(wp: Waypost): Promise<Buffer> {
  const file = wp.config.databaseUrl.slice('sqlite:'.length);
  return Buffer.concat([file, `${file}-wal`, `${file}-shm`].filter(existsSync).map((f) => readFileSync(f)));
}

/** Every row of the test's schema, as pg_dump writes it. */
async function pgDump(wp: Waypost): Promise<string> {
  const { stdout } = await promisify(execFile)('pg_dump',
    ['--no-owner', '--no-privileges', '--data-only', '--schema', schemaOf(wp.config.databaseUrl), '--dbname', PG_URL],
    { maxBuffer: 256 * 1024 * 1024 });
  return stdout;
}
