import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { DIALECTS } from '../helpers/db.js';
import { apiFixture, booking, type ApiFixture } from './setup.js';

describe.each(DIALECTS)('OpenAPI document and reference on %s', (dialect) => {
  let f: ApiFixture;
  let doc: any;
  beforeAll(async () => {
    f = await apiFixture(dialect);
    const res = await f.app.inject({ url: `${f.root}/openapi.json` });
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });
  afterAll(async () => f.wp.close());

  it('is OpenAPI 3.1 and documents exactly the public API endpoints', () => {
    expect(doc.openapi).toBe('3.1.0');
    const paths = Object.keys(doc.paths).sort();
    const expected = ['bookings', 'trips', 'customers', 'payments'].flatMap((r) => [`${f.root}/${r}`, `${f.root}/${r}/{id}`]).concat(`${f.root}/test`).sort();
    expect(paths).toEqual(expected);
    for (const p of paths) expect(Object.keys(doc.paths[p])).toEqual(['get']);
  });

  it('describes the credentials, parameters and problem responses the routes use', () => {
    expect(doc.components.securitySchemes.AccessToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'Access-Token' });
    expect(doc.components.securitySchemes.AccessSecret).toMatchObject({ type: 'apiKey', in: 'header', name: 'Access-Secret' });
    const list = doc.paths[`${f.root}/bookings`].get;
    const names = list.parameters.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['perpage', 'page', 'after', 'search', 'orderby', 'order', 'modified_after', 'status', 'customer_id', 'trip_id', 'email']));
    expect(list.parameters.find((p: { name: string }) => p.name === 'perpage').schema).toMatchObject({ minimum: 1, maximum: 100, default: 10 });
    expect(list.responses['401'].content['application/problem+json']).toBeTruthy();
    expect(list.responses['200'].headers['X-Total-Count']).toBeTruthy();
    expect(doc.components.schemas.Booking.properties.data_complete).toBeTruthy();
  });

  it('describes what the API really answers: a list validates against its documented schema', async () => {
    await f.wp.put('bookings', 1, booking());
    const body = (await f.get('/bookings')).json();
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    for (const [name, schema] of Object.entries(doc.components.schemas)) ajv.addSchema(schema as object, `#/components/schemas/${name}`);
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
    for (const s of scripts) expect((await f.app.inject({ url: new URL(s, `http://x${f.root}/docs/`).pathname })).statusCode, s).toBe(200);
    const asset = await f.app.inject({ url: new URL(bundle, `http://x${f.root}/docs/`).pathname });
    expect(asset.body.length).toBeGreaterThan(100_000);
    // The page loads the document from ./json, relative to /docs/.
    const json = await f.app.inject({ url: `${f.root}/docs/json` });
    expect(json.json().openapi).toBe('3.1.0');
  });
});
