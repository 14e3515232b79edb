import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH } from '../helpers/waypost.js';
import { createApiKey } from '../../src/api/keys.js';
import { createWaypost } from '../../src/sdk.js';
import { createLogger } from '../../src/log.js';
import { apiFixture, authOf, booking, customer, fakeClock, payment, trip, type ApiFixture } from './setup.js';
import { DeliveryWorker } from '../../src/webhooks/index.js';
import { addWebhook } from '../webhooks/engine/fixtures.js';
import { startReceiver } from '../webhooks/engine/receiver.js';

describe.each(DIALECTS)('REST API response cache on %s', (dialect) => {
  let f: ApiFixture;
  afterEach(async () => f.wp.close());

  it('serves a repeated request from the cache, with the same body and ETag', async () => {
    f = await apiFixture(dialect);
    await f.wp.put('trips', 1, trip());
    const miss = await f.get('/trips?perpage=5');
    expect(miss.headers['x-cache']).toBe('MISS');
    const hit = await f.get('/trips?perpage=5');
    expect(hit.headers['x-cache']).toBe('HIT');
    expect(hit.body).toBe(miss.body);
    expect(hit.headers.etag).toBe(miss.headers.etag);
    expect(hit.headers['x-total-count']).toBe('1');
    expect(hit.headers.link).toBe(miss.headers.link);
    // The same query in another parameter order is the same entry.
    await f.get('/trips?order=desc&perpage=5');
    expect((await f.get('/trips?perpage=5&order=desc')).headers['x-cache']).toBe('HIT');
  });

  it('keys a query injectively: an escaped value cannot spell another query and poison its entry', async () => {
    f = await apiFixture(dialect);
    await f.wp.put('customers', 1, customer({ email: 'a@b.c' }));
    // Decoded, this e-mail reads `a@b.c&order=asc`: joined unescaped it was the key of the query below.
    const crafted = await f.get('/customers?email=a%40b.c%26order%3Dasc');
    expect(crafted.statusCode).toBe(200);
    expect(crafted.json()).toEqual([]);
    const real = await f.get('/customers?email=a@b.c&order=asc');
    expect(real.headers['x-cache']).toBe('MISS');
    expect(real.json().map((c: { id: number }) => c.id)).toEqual([1]);
    expect((await f.get('/customers?email=a%40b.c%26order%3Dasc')).json()).toEqual([]);
  });

  it('is keyed without credentials, but still authenticates and checks permissions first', async () => {
    f = await apiFixture(dialect);
    await f.wp.put('trips', 1, trip());
    await f.get('/trips');
    const other = await createApiKey(f.wp.core, { label: 'other', permissions: ['trips.list'] });
    expect((await f.get('/trips', authOf(other))).headers['x-cache']).toBe('HIT');
    const noPermission = await createApiKey(f.wp.core, { label: 'bookings only', permissions: ['bookings.list'] });
    const refused = await f.get('/trips', authOf(noPermission));
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['x-cache']).toBeUndefined();
    expect((await f.get('/trips', {})).statusCode).toBe(401);
  });

  it('is invalidated by a write through the Host API', async () => {
    f = await apiFixture(dialect);
    await f.wp.put('trips', 1, trip({ title: 'Old title' }));
    await f.get('/trips/1');
    expect((await f.get('/trips/1')).headers['x-cache']).toBe('HIT');
    const put = await f.app.inject({ method: 'PUT', url: '/host/v1/trips/1', headers: HOST_AUTH,
      payload: trip({ title: 'New title' }) });
    expect(put.statusCode).toBe(200);
    const after = await f.get('/trips/1');
    expect(after.headers['x-cache']).toBe('MISS');
    expect(after.json().title).toBe('New title');
  });

  it('is invalidated by an SDK write, including derived fields of related resources', async () => {
    f = await apiFixture(dialect);
    await f.wp.put('bookings', 1, booking());
    const before = await f.get('/bookings/1');
    expect(before.json().payment_ids).toEqual([]);
    const customerPath = `/customers/${before.json().customer.id}`; // an id from Waypost's own range
    await f.get(customerPath);
    expect((await f.get('/bookings/1')).headers['x-cache']).toBe('HIT');
    await f.wp.put('payments', 9, payment({ booking_id: 1 }));
    const after = await f.get('/bookings/1');
    expect(after.headers['x-cache']).toBe('MISS');
    expect(after.json().payment_ids).toEqual([9]);
    await f.wp.put('bookings', 2, booking());
    expect((await f.get(customerPath)).json().booking_ids).toEqual([1, 2]);
    await f.wp.delete('bookings', 2);
    expect((await f.get(customerPath)).json().booking_ids).toEqual([1]);
  });

  it('answers 304 to If-None-Match with the current ETag, and 200 once the data changed', async () => {
    f = await apiFixture(dialect);
    await f.wp.put('trips', 1, trip());
    const first = await f.get('/trips/1');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const notModified = await f.get('/trips/1', { ...f.auth, 'if-none-match': etag });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
    expect((await f.get('/trips/1', { ...f.auth, 'if-none-match': `"other", W/${etag}` })).statusCode).toBe(304);
    await f.wp.put('trips', 1, trip({ title: 'Changed' }));
    const changed = await f.get('/trips/1', { ...f.auth, 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('expires entries after WAYPOST_CACHE_TTL_S', async () => {
    const clock = fakeClock();
    f = await apiFixture(dialect, { clock, config: { cacheTtlS: 60 } });
    await f.wp.put('trips', 1, trip());
    await f.get('/trips');
    clock.advance(59_000);
    expect((await f.get('/trips')).headers['x-cache']).toBe('HIT');
    clock.advance(2_000);
    expect((await f.get('/trips')).headers['x-cache']).toBe('MISS');
  });

  it('is off with WAYPOST_CACHE_TTL_S=0, still with ETags and 304', async () => {
    f = await apiFixture(dialect, { config: { cacheTtlS: 0 } });
    await f.wp.put('trips', 1, trip());
    const a = await f.get('/trips');
    const b = await f.get('/trips');
    expect([a.headers['x-cache'], b.headers['x-cache']]).toEqual(['MISS', 'MISS']);
    expect((await f.get('/trips', { ...f.auth, 'if-none-match': b.headers.etag as string })).statusCode).toBe(304);
  });

  it('stays within WAYPOST_CACHE_MAX_BYTES', async () => {
    f = await apiFixture(dialect, { config: { cacheMaxBytes: 3_000 } });
    for (let i = 1; i <= 5; i++) await f.wp.put('trips', i, trip({ title: `Trip number ${i}` }));
    for (let i = 1; i <= 5; i++) await f.get(`/trips/${i}`);
    // Each entry is ~1 kB in memory: the newest is still there, the oldest was evicted.
    expect((await f.get('/trips/5')).headers['x-cache']).toBe('HIT');
    expect((await f.get('/trips/1')).headers['x-cache']).toBe('MISS');
  });

  it('never answers (or caches) rows of a write transaction that is still open and then rolls back', async () => {
    f = await apiFixture(dialect);
    await f.wp.put('trips', 1, trip());
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    const row = await f.wp.core.db.selectFrom('trips').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    const write = f.wp.core.db.transaction().execute(async (trx) => {
      await trx.insertInto('trips')
        .values({ ...row, id: 99, data: JSON.stringify({ ...JSON.parse(row.data), id: 99, title: 'Uncommitted' }) })
        .execute();
      await held;
      throw new Error('roll back');
    }).catch(() => 'rolled back');
    await new Promise((r) => setTimeout(r, 20));
    const during = f.get('/trips');
    // Give the request time to answer if it could (it must not: it waits for the transaction to end).
    await Promise.race([during, new Promise((r) => setTimeout(r, 300))]);
    release();
    expect(await write).toBe('rolled back');
    expect((await during).json().map((t: { id: number }) => t.id)).toEqual([1]);
    expect((await f.get('/trips')).json().map((t: { id: number }) => t.id)).toEqual([1]);
  });
});

describe('REST API response cache with another process writing the same SQLite file (no Redis)', () => {
  it('serves the other process\'s write on the next request, not the cached answer', async () => {
    const f = await apiFixture('sqlite');
    // A second Waypost on the same file stands for `waypost import` or another process: its own connection.
    const other = await createWaypost({ env: {}, logger: createLogger('silent'),
      config: { databaseUrl: f.wp.config.databaseUrl } });
    try {
      await f.wp.put('trips', 1, trip({ title: 'Old title' }));
      await f.get('/trips/1');
      expect((await f.get('/trips/1')).headers['x-cache']).toBe('HIT');
      await other.put('trips', 1, trip({ title: 'Imported title' }));
      const after = await f.get('/trips/1');
      expect(after.headers['x-cache']).toBe('MISS');
      expect(after.json().title).toBe('Imported title');
      expect((await f.get('/trips/1')).headers['x-cache']).toBe('HIT');
    } finally {
      await other.close();
      await f.wp.close();
    }
  });

  it('keeps the cached answers of what the other process did not change', async () => {
    const f = await apiFixture('sqlite');
    const other = await createWaypost({ env: {}, logger: createLogger('silent'),
      config: { databaseUrl: f.wp.config.databaseUrl } });
    try {
      await f.wp.put('trips', 1, trip());
      await f.wp.put('customers', 1, customer({ first_name: 'Ana' }));
      await f.get('/trips/1');
      await f.get('/customers/1');
      await other.put('customers', 1, customer({ first_name: 'Anabela' }));
      expect((await f.get('/trips/1')).headers['x-cache']).toBe('HIT');
      const changed = await f.get('/customers/1');
      expect(changed.headers['x-cache']).toBe('MISS');
      expect(changed.json().first_name).toBe('Anabela');
    } finally {
      await other.close();
      await f.wp.close();
    }
  });
});

describe('REST API response cache while the delivery worker writes (its own SQLite connection)', () => {
  it('stays warm: deliveries and their attempts change no answer the API serves', async () => {
    const receiver = await startReceiver();
    const f = await apiFixture('sqlite');
    try {
      await addWebhook(f.wp.core, receiver.url, { events: ['enquiry.created'] });
      await f.wp.put('trips', 1, trip());
      await f.get('/trips/1');
      for (let i = 1; i <= 20; i++) await f.wp.put('enquiries', i,
        { full_name: `Guest ${i}`, email: `g${i}@example.com`, message: 'Hello' });
      const worker = new DeliveryWorker(f.wp.core);
      await worker.drain();
      expect(receiver.requests).toHaveLength(20);
      const delivered = await f.wp.core.db.selectFrom('deliveries').select('status').where('status', '=', 'succeeded')
        .execute();
      expect(delivered).toHaveLength(20);
      expect((await f.get('/trips/1')).headers['x-cache']).toBe('HIT');
    } finally {
      await f.wp.close();
      await receiver.close();
    }
  });
});
