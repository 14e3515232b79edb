import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { DIALECTS } from '../helpers/db.js';
import { apiFixture, booking, type ApiFixture } from './setup.js';

// ajv-formats is CommonJS: its default export is the plugin function under NodeNext's interop.
const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;

describe.each(DIALECTS)('OpenAPI document and reference on %s', (dialect) => {
  let f: ApiFixture;
  let doc: any;
  beforeAll(async () => {
    f = await apiFixture(dialect);
    const res = await f.app.inject({ url: `${f.root}/openapi.json` });
    expect(res.statusCode).toBe(200);
    doc = res.json();
    // The event feed's paths are checked by test/feed/feed-openapi.test.ts (no ETag, a POST, event ids).
    for (const path of Object.keys(doc.paths)) if (path.startsWith(`${f.root}/events`)) delete doc.paths[path];
  });
  afterAll(async () => f.wp.close());

  it('is OpenAPI 3.1 and documents exactly the public API endpoints', () => {
    expect(doc.openapi).toBe('3.1.0');
    const paths = Object.keys(doc.paths).sort();
    const expected = ['bookings', 'trips', 'customers', 'payments'].flatMap((r) => [`${f.root}/${r}`,
      `${f.root}/${r}/{id}`]).concat(`${f.root}/test`).sort();
    expect(paths).toEqual(expected);
    for (const p of paths) {
      // One operation per path: HEAD and the other methods' 405 are said once, in the description (below).
      expect(Object.keys(doc.paths[p]).filter((k) => k !== 'parameters')).toEqual(['get']);
    }
  });

  it('passes @redocly/openapi-core\'s recommended rules with no error', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId} ${p.message} ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
    expect(problems.map((p) => `${p.ruleId} ${p.message}`)).toEqual([]);
  });

  it('publishes response headers as header objects: a schema each, never a schema inside a schema', () => {
    const headers: Array<[string, any]> = [];
    for (const item of Object.values<any>(doc.paths)) {
      for (const op of Object.values<any>(item)) {
        for (const r of Object.values<any>(op.responses ?? {})) for (const [name, h] of Object.entries(r.headers
          ?? {})) headers.push([name, h]);
      }
    }
    expect(headers.length).toBeGreaterThan(100);
    for (const [name, h] of headers) {
      const header = h.$ref ? doc.components.headers[h.$ref.replace('#/components/headers/', '')] : h;
      expect(header, name).toBeTruthy();
      expect(header.schema?.type, name).toMatch(/^(string|integer)$/);
      expect(header.schema.schema, name).toBeUndefined();
    }
    const list = doc.paths[`${f.root}/bookings`].get.responses['200'].headers;
    expect(list['X-Total-Count']).toMatchObject({ schema: { type: 'integer' } });
    expect(list['X-Total-Count'].description).toMatch(/^Records matching the filters\..*left out/);
    expect(list.Link.schema).toEqual({ type: 'string' });
  });

  it('documents every status a path answers: 304 and ETag, Retry-After on 429; HEAD and 405 once', () => {
    for (const path of Object.keys(doc.paths)) {
      const item = doc.paths[path];
      const get = item.get;
      expect(get.responses['200'].headers.ETag, path).toBeTruthy();
      expect(get.responses['304'].headers.ETag, path).toBeTruthy();
      expect(get.responses['304'].content, path).toBeUndefined();
      expect(Object.keys(get.responses).sort(), path)
        .toEqual(expect.arrayContaining(['200', '304', '400', '401', '429', '503']));
      expect(get.responses['429'].headers['Retry-After'], path).toEqual({ $ref: '#/components/headers/Retry-After' });
      expect(get.responses['200'].headers.RateLimit, path).toEqual({ $ref: '#/components/headers/RateLimit' });
      if (path.endsWith('{id}')) expect(Object.keys(get.responses)).toContain('404');
    }
    expect(doc.info.description).toContain('every other method answers 405 Method Not Allowed with `Allow: GET, HEAD`');
    expect(doc.info.description).toContain('HEAD (the same status and headers, no body)');
    expect(doc.components.headers['Retry-After'].schema.type).toBe('integer');
  });

  it('types ids as integers, and reads well: "List bookings", "Get a booking", unique operation ids', () => {
    const idParam = doc.paths[`${f.root}/payments/{id}`].parameters.find((p: { name: string }) => p.name === 'id');
    expect(idParam).toMatchObject({ in: 'path', required: true, schema: { type: 'integer', minimum: 1 } });
    const query = doc.paths[`${f.root}/bookings`].get.parameters;
    for (const name of ['customer_id', 'trip_id']) expect(query.find((p: { name: string }) => p.name === name)
      .schema.type).toBe('integer');
    expect(doc.paths[`${f.root}/payments`].get.parameters.find((p: { name: string }) => p.name === 'booking_id')
      .schema.type).toBe('integer');
    const summaries = Object.fromEntries(Object.entries<any>(doc.paths)
      .map(([p, item]) => [p.slice(f.root.length), item.get.summary]));
    expect(summaries).toEqual({
      '/test': 'Check your credentials',
      '/bookings': 'List bookings', '/bookings/{id}': 'Get a booking', '/trips': 'List trips',
        '/trips/{id}': 'Get a trip',
      '/customers': 'List customers', '/customers/{id}': 'Get a customer', '/payments': 'List payments',
        '/payments/{id}': 'Get a payment',
    });
    const ids = Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item).map((op) => op.operationId)
      .filter(Boolean));
    expect(ids).toContain('listBookings');
    expect(ids).toContain('getBooking');
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('names every operation for generated SDKs: listBookings, getBooking, test; unique, camelCase', () => {
    const ops = Object.entries<any>(doc.paths).flatMap(([path, item]) => Object.entries<any>(item)
      .filter(([method]) => method !== 'parameters')
      .map(([method, op]) => ({ path: path.slice(f.root.length), method, op })));
    expect(ops).toHaveLength(9);
    const ids = ops.map(({ path, method, op }) => {
      expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]*$/);
      return op.operationId as string;
    });
    expect(new Set(ids).size).toBe(ids.length);
    const gets = Object.fromEntries(ops.filter((o) => o.method === 'get').map((o) => [o.path, o.op.operationId]));
    expect(gets).toEqual({
      '/test': 'test',
      '/bookings': 'listBookings', '/bookings/{id}': 'getBooking', '/trips': 'listTrips', '/trips/{id}': 'getTrip',
      '/customers': 'listCustomers', '/customers/{id}': 'getCustomer', '/payments': 'listPayments',
        '/payments/{id}': 'getPayment',
    });
  });

  it('gives every path id and query parameter an example that its own schema accepts', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const params: Array<[string, any]> = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const p of item.parameters ?? []) params.push([path, p]);
      for (const p of item.get.parameters ?? []) params.push([path, p]);
    }
    // 4 ids; per list 7 common parameters and bookings 4, trips 1, customers 1, payments 2 of their own.
    expect(params).toHaveLength(4 + 4 * 7 + 4 + 1 + 1 + 2);
    for (const [path, p] of params) {
      expect(p.example, `${path} ${p.name}`).toBeDefined();
      expect(ajv.validate(p.schema, p.example), `${path} ${p.name}: ${ajv.errorsText()}`).toBe(true);
    }
    const idOf = (r: string) => doc.paths[`${f.root}/${r}/{id}`].parameters[0].example;
    // The demo seed's booking 1001 (customer 26) and its payment 5001.
    expect([idOf('bookings'), idOf('trips'), idOf('customers'), idOf('payments')]).toEqual([1001, 1, 26, 5001]);
  });

  it('answers what it documents: 304 on /test and details, HEAD with headers only, and an id in range', async () => {
    await f.wp.put('trips', 7, { title: 'Douro Valley Walk' });
    for (const path of ['/test', '/trips/7']) {
      const first = await f.get(path);
      expect(first.statusCode).toBe(200);
      const again = await f.get(path, { ...f.auth, 'if-none-match': String(first.headers.etag) });
      expect(again.statusCode, path).toBe(304);
      const head = await f.app.inject({ method: 'HEAD', url: `${f.root}${path}`, headers: f.auth });
      expect(head.statusCode, path).toBe(200);
      expect(head.body).toBe('');
      expect(head.headers.etag).toBe(first.headers.etag);
    }
    const max = doc.paths[`${f.root}/trips/{id}`].parameters[0].schema.maximum;
    expect((await f.get(`/trips/${max}`)).statusCode).toBe(404);
    expect((await f.get(`/trips/${max + 1}`)).statusCode).toBe(400);
  });

  it('describes the credentials, parameters and problem responses the routes use', () => {
    expect(doc.components.securitySchemes.AccessToken)
      .toMatchObject({ type: 'apiKey', in: 'header', name: 'Access-Token' });
    expect(doc.components.securitySchemes.AccessSecret)
      .toMatchObject({ type: 'apiKey', in: 'header', name: 'Access-Secret' });
    const list = doc.paths[`${f.root}/bookings`].get;
    const names = list.parameters.map((p: { name: string }) => p.name);
    expect(names)
      .toEqual(expect.arrayContaining(['perpage', 'page', 'after', 'search', 'orderby', 'order', 'modified_after',
      'status', 'customer_id', 'trip_id', 'email']));
    expect(list.parameters.find((p: { name: string }) => p.name === 'perpage').schema)
      .toMatchObject({ minimum: 1, maximum: 100, default: 10 });
    expect(list.responses['401'].content['application/problem+json']).toBeTruthy();
    expect(list.responses['200'].headers['X-Total-Count'].schema.type).toBe('integer');
    expect(doc.components.schemas.Booking.properties.data_complete).toBeTruthy();
  });

  it('describes what the API really answers: a list validates against its documented schema', async () => {
    await f.wp.put('bookings', 1, booking());
    const body = (await f.get('/bookings')).json();
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    for (const [name, schema] of Object.entries(doc.components.schemas)) ajv.addSchema(schema as object,
      `#/components/schemas/${name}`);
    const schema = doc.paths[`${f.root}/bookings`].get.responses['200'].content['application/json'].schema;
    const validate = ajv.compile({ ...schema, $defs: undefined });
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
  });

  it('renders a reference at /docs with assets served locally (no CDN)', async () => {
    const res = await f.app.inject({ url: `${f.root}/docs` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    const scripts = [...res.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const s of scripts) expect(s).not.toMatch(/^(https?:)?\/\//);
    const bundle = scripts.find((s) => s.includes('swagger-ui-bundle.js'))!;
    for (const s of scripts) expect((await f.app.inject({ url: new URL(s, `http://x${f.root}/docs/`).pathname }))
      .statusCode, s).toBe(200);
    const asset = await f.app.inject({ url: new URL(bundle, `http://x${f.root}/docs/`).pathname });
    expect(asset.body.length).toBeGreaterThan(100_000);
    // The page loads the document from ./json, relative to /docs/.
    const json = await f.app.inject({ url: `${f.root}/docs/json` });
    expect(json.json().openapi).toBe('3.1.0');
  });
});
