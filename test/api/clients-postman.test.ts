// The Postman collection a user downloads, run as Postman would run it (newman, as a library) against a running
// Waypost seeded with the demo catalogue, with an API key that has every permission.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import newman, { type NewmanRunSummary } from 'newman';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { apiRoot } from '../../src/config.js';
import { createApiKey, PERMISSIONS, type CreatedApiKey } from '../../src/api/keys.js';
import { seedDemo } from '../../src/demo/seed.js';
import type { Waypost } from '../../src/sdk.js';
import { DIALECTS } from '../helpers/db.js';
import { testWaypost } from '../helpers/waypost.js';

type Json = Record<string, any>;

const run = (collection: Json, env: Record<string, string>) => new Promise<NewmanRunSummary>((resolve, reject) => {
  const envVar = Object.entries(env).map(([key, value]) => ({ key, value }));
  newman.run({ collection, envVar, reporters: [] }, (err, summary) => (err ? reject(err) : resolve(summary)));
});
const requestsOf = (items: Json[]): Json[] => items.flatMap((i) => (i.item ? requestsOf(i.item) : [i]));
const testEvent = (lines: string[]) => ({ listen: 'test', script: { type: 'text/javascript', exec: lines } });

describe.each(DIALECTS)('the Postman collection on %s', (dialect) => {
  let wp: Waypost;
  let url: string;
  let root: string;
  let key: CreatedApiKey;
  let served: Response;
  let collection: Json;
  let doc: Json;
  let env: Record<string, string>;

  beforeAll(async () => {
    wp = await testWaypost({ dialect, config: { port: 0, host: '127.0.0.1' } });
    url = (await wp.serve('api')).url!;
    root = apiRoot(wp.config);
    await seedDemo(wp.core);
    key = await createApiKey(wp.core, { label: 'postman', permissions: [...PERMISSIONS] });
    env = { baseUrl: url, accessToken: key.key, accessSecret: key.secret };
    served = await fetch(`${url}${root}/postman.json`); // no credentials, like openapi.json
    collection = await served.json();
    // The event feed's folder (no stable event id in the demo seed) is checked by test/feed/feed-openapi.test.ts.
    collection.item = (collection.item as Json[]).filter((i) => i.name !== 'events');
    doc = await (await fetch(`${url}${root}/openapi.json`)).json();
  }, 120_000);
  afterAll(async () => wp?.close());

  it('is served to download, one request per read, both credentials as variables sent as headers', () => {
    expect(served.status).toBe(200);
    expect(served.headers.get('content-disposition')).toBe('attachment; filename="waypost.postman_collection.json"');
    expect(collection.info.schema).toMatch(/collection\/v2\.1\.0/);
    expect(collection.variable.map((v: Json) => v.key)).toEqual(['baseUrl', 'accessToken', 'accessSecret']);
    expect(collection.auth).toBeUndefined();
    const requests = requestsOf(collection.item);
    expect(requests.map((r) => `${r.request.method} /${r.request.url.path.slice(4).join('/')}`).sort()).toEqual([
      'GET /bookings', 'GET /bookings/:id', 'GET /customers', 'GET /customers/:id',
      'GET /payments', 'GET /payments/:id', 'GET /test', 'GET /trips', 'GET /trips/:id',
    ]);
    for (const { name, request } of requests) {
      expect(request.auth, name).toBeUndefined();
      const headers = Object.fromEntries(request.header.map((h: Json) => [h.key, h.value]));
      expect(headers, name).toMatchObject({ 'Access-Token': '{{accessToken}}', 'Access-Secret': '{{accessSecret}}' });
      expect(request.url.host, name).toEqual(['{{baseUrl}}']);
      // Optional query parameters are there to tick, unticked.
      for (const q of request.url.query ?? []) expect(q.disabled, `${name} ${q.key}`).toBe(true);
    }
    const ids = Object.fromEntries(requests.filter((r) => r.request.url.variable?.length)
      .map((r) => [r.request.url.path[4], r.request.url.variable[0].value]));
    expect(ids).toEqual({ bookings: '1001', trips: '1', customers: '26', payments: '5001' });
  });

  it('runs green with newman: every request answers 200 with what the document describes', async () => {
    const summary = await run(collection, env);
    expect(summary.run.failures.map((f) => `${f.source?.name}: ${f.error.message}`)).toEqual([]);
    expect(summary.run.stats.requests).toMatchObject({ total: 9, failed: 0 });
    expect(summary.run.stats.assertions).toMatchObject({ total: 18, failed: 0 });
    // Each body validates against the response schema the document gives its operation.
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    for (const [name, schema] of Object.entries<Json>(doc.components.schemas)) {
      ajv.addSchema(schema, `#/components/schemas/${name}`);
    }
    const bodies: Record<string, unknown> = {};
    for (const execution of summary.run.executions) {
      const path = execution.request.url.getPath().slice(root.length);
      const template = path.replace(/\/\d+$/, '/{id}');
      const schema = doc.paths[`${root}${template}`].get.responses['200'].content['application/json'].schema;
      const body = JSON.parse(execution.response.stream!.toString('utf8'));
      const validate = ajv.compile({ ...schema, $defs: undefined });
      expect(validate(body), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
      bodies[path] = body;
    }
    // The seeded records, not empty answers.
    expect(bodies['/bookings/1001']).toMatchObject({ id: 1001, customer: { id: 26 } });
    expect(bodies['/payments/5001']).toMatchObject({ id: 5001, booking_id: 1001 });
    expect(bodies['/customers/26']).toMatchObject({ id: 26, email: 'diego.novak@example.com' });
    expect(bodies['/trips/1']).toMatchObject({ id: 1, title: 'Douro Valley Wine Trail' });
    expect(bodies['/test']).toMatchObject({ ok: true, key: key.id });
    for (const r of ['bookings', 'trips', 'customers', 'payments']) {
      expect((bodies[`/${r}`] as unknown[]).length, r).toBe(10);
    }
  }, 60_000);

  it('finds seeded records with each query parameter\'s example, ticked on its own', async () => {
    // One request per (list, parameter), that parameter ticked alone; each must find at least one record.
    const lists = requestsOf(collection.item).filter((r) => r.request.url.query?.length);
    const item = lists.flatMap((r) => (r.request.url.query as Json[]).map((q) => ({
      ...r,
      name: `${r.name} ?${q.key}=${q.value}`,
      request: {
        ...r.request,
        url: { ...r.request.url, query: r.request.url.query.map((o: Json) => ({ ...o, disabled: o.key !== q.key })) },
      },
      event: [testEvent(["pm.test('finds records', function () { pm.expect(pm.response.json()).to.not.be.empty; });"])],
    })));
    expect(item).toHaveLength(11 + 8 + 8 + 9);
    const summary = await run({ ...collection, item }, env);
    expect(summary.run.failures.map((f) => `${f.source?.name}: ${f.error.message}`)).toEqual([]);
    expect(summary.run.stats.requests).toMatchObject({ total: item.length, failed: 0 });
    // The collection's own two checks and "finds records", for each.
    expect(summary.run.stats.assertions).toMatchObject({ total: 3 * item.length, failed: 0 });
    const sent = summary.run.executions.map((e) => e.request.url.toString());
    expect(sent).toContain(`${url}${root}/bookings?customer_id=26`);
  }, 60_000);

  it('fails when the secret is missing: the run is not green by default', async () => {
    const summary = await run(collection, { ...env, accessSecret: '' });
    expect(summary.run.stats.assertions.failed).toBe(9);
  }, 60_000);
});
