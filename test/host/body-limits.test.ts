// What a request body may be (issue 29 item 1): each route reads at most its own limit, and the Host API refuses JSON
// shaped to fill the heap (too deep, too many values) before parsing it, while the bridge's largest real batch (500
// reviews at its 20,000-character cap) still goes through. The same bodies against `npm start`'s process and heap:
// test/cli/hostile-body.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DIALECTS } from '../helpers/db.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import { rotateAdminToken } from '../../src/admin/token.js';
import { BATCH_BODY_LIMIT } from '../../src/host/routes.js';
import { reviewOperations } from './real-batch.js';

const JSON_AUTH = { ...HOST_AUTH, 'content-type': 'application/json' };
/** One put whose data is `inner` (raw JSON text), as an attacker holding the host token would write it. */
const batchAround = (inner: string) => `{"operations":[{"op":"put","resource":"trips","id":1,"data":${inner}}]}`;

describe.each(DIALECTS)('Request body limits on %s', (dialect) => {
  let wp: Waypost;
  let app: FastifyInstance;
  beforeEach(async () => {
    wp = await testWaypost({ dialect });
    app = await wp.app();
  });
  afterEach(async () => wp.close());

  const post = (url: string, payload: string, headers = JSON_AUTH) =>
    app.inject({ method: 'POST', url, headers, payload });
  const trips = async () => Number((await wp.core.db.selectFrom('trips')
    .select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('refuses JSON nested deeper than any record needs with 400 too_deep, writing nothing', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    for (const [url, payload] of [['/host/v1/batch', batchAround(deep)], ['/host/v1/trips/1', deep]]) {
      const res = url.endsWith('batch') ? await post(url, payload)
        : await app.inject({ method: 'PUT', url, headers: JSON_AUTH, payload });
      expect(res.statusCode, url).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json()).toMatchObject({ code: 'too_deep', max_depth: 10 });
    }
    // A booking's line item, the deepest a record goes, is 8 levels down in a batch: it passes.
    const lineItem = { label: 'Adult', quantity: 2, price: '80.00', total: '160.00' };
    const ok = await app.inject({ method: 'POST', url: '/host/v1/batch', headers: HOST_AUTH, payload: { operations: [{
      op: 'put', resource: 'bookings', id: 70, data: { status: 'pending', currency: 'EUR', total_amount: '160.00',
        trips: [{ trip_id: 23, line_items: [lineItem] }], engine_version: '6.8.0', cart_version: '4.0' },
    }] } });
    expect(ok.json().results).toEqual([{ index: 0, status: 201, created: true, changed: true }]);
  });

  it('refuses a body of more values than a batch needs (`[[],[],…]`) with 413 too_many_values', async () => {
    const res = await post('/host/v1/batch', batchAround(`[${'[],'.repeat(300_000)}[]]`));
    expect(res.statusCode).toBe(413);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 413, code: 'too_many_values', max_values: 250_000 });
    // Strings are skipped whole: brackets and commas inside one are text, not values.
    const text = `"${'[],\\"'.repeat(100_000)}"`;
    const fine = await post('/host/v1/batch', batchAround(`{"title":${text}}`));
    expect(fine.statusCode).toBe(200);
    expect(fine.json().results[0]).toMatchObject({ status: 400, error: { field: 'data.title' } });
    expect(await trips()).toBe(0);
  });

  it('gives every route its own body limit: batch 12 MiB, PUT 1 MiB, the rest of /host/v1 and admin less', async () => {
    const over = (bytes: number) => JSON.stringify({ title: 'x'.repeat(bytes) });
    const tooLarge = { status: 413, code: 'payload_too_large' };
    const batch = await post('/host/v1/batch', batchAround(over(BATCH_BODY_LIMIT)));
    expect(batch.json()).toMatchObject(tooLarge);
    const put = await app.inject({ method: 'PUT', url: '/host/v1/trips/1', headers: JSON_AUTH,
      payload: over(1024 * 1024) });
    expect(put.json()).toMatchObject(tooLarge);
    const link = await post('/host/v1/sign-in-links',
      JSON.stringify({ email: 'ana@example.com', name: 'x'.repeat(17_000) }));
    expect(link.json()).toMatchObject(tooLarge);
    const del = await app.inject({ method: 'DELETE', url: '/host/v1/trips/1', headers: JSON_AUTH,
      payload: over(17_000) });
    expect(del.json()).toMatchObject(tooLarge);
    const admin = { authorization: `Bearer ${await rotateAdminToken(wp.core)}`, 'content-type': 'application/json' };
    const hook = await post('/admin/api/webhooks',
      JSON.stringify({ url: 'https://example.com/h', name: 'x'.repeat(70_000) }), admin);
    expect(hook.json()).toMatchObject(tooLarge);
    expect(await trips()).toBe(0);
  });

  it('takes the bridge\'s largest real batch: 500 reviews of 20,000 characters (~10 MB) in one request', async () => {
    const body = JSON.stringify({ operations: reviewOperations(500) });
    expect(body.length).toBeGreaterThan(10_000_000);
    expect(body.length).toBeLessThan(BATCH_BODY_LIMIT);
    const res = await post('/host/v1/batch', body);
    expect(res.statusCode).toBe(200);
    const results = res.json().results as Array<{ status: number }>;
    expect(results).toHaveLength(500);
    expect(results.every((r) => r.status === 201)).toBe(true);
    const n = await wp.core.db.selectFrom('reviews').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(500);
  }, 60_000);
});
