// GET /admin/api/events/:type/sample, what the console's "Sample payload" buttons show: the envelope of each event
// type with its sample record, valid against the event's schema in the OpenAPI document; unknown types are a 404.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { apiRoot } from '../../src/config.js';
import type { Waypost } from '../../src/sdk.js';
import { EVENT_TYPE_NAMES } from '../../src/webhooks/catalog.js';
import { closeAdminSuite, openAdminSuite, type Receiver } from '../webhooks/manage/fixtures.js';

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;

describe('event samples in the admin API', () => {
  let wp: Waypost;
  let app: FastifyInstance;
  let auth: Record<string, string>;
  let receiver: Receiver;
  beforeEach(async () => ({ wp, app, auth, receiver } = await openAdminSuite('sqlite')));
  afterEach(async () => closeAdminSuite({ wp, receiver }));

  it('answers each event type\'s envelope, valid against that event\'s schema in openapi.json', async () => {
    const doc = (await app.inject({ url: `${apiRoot(wp.config)}/openapi.json` })).json();
    const ajv = addFormats(new Ajv2020({ strict: false }));
    for (const [name, schema] of Object.entries<object>(doc.components.schemas)) {
      ajv.addSchema(schema, `#/components/schemas/${name}`);
    }
    for (const type of EVENT_TYPE_NAMES) {
      const res = await app.inject({ url: `/admin/api/events/${type}/sample`, headers: auth });
      expect(res.statusCode, type).toBe(200);
      const body = res.json();
      const update = ['booking.updated', 'booking.canceled', 'booking.completed'].includes(type);
      const keys = ['id', 'type', 'created_at', 'data', ...(update ? ['previous_attributes'] : [])];
      expect(Object.keys(body)).toEqual(keys);
      expect(body.type).toBe(type);
      const validate = ajv.compile(doc.webhooks[type].post.requestBody.content['application/json'].schema);
      expect(validate(body), `${type}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    const url = '/admin/api/events/booking.due.payment.completed/sample';
    const due = (await app.inject({ url, headers: auth })).json();
    expect(due.data.is_due_payment).toBe(true);
  });

  it('answers the minimal payload a webhook set to it gets: ids and the API link, no personal field', async () => {
    const full = (await app.inject({ url: '/admin/api/events/booking.updated/sample', headers: auth })).json();
    const res = await app.inject({ url: '/admin/api/events/booking.updated/sample?payload=minimal', headers: auth });
    expect(res.statusCode).toBe(200);
    const minimal = res.json();
    expect(minimal).toMatchObject({ type: 'booking.updated', data: { resource: 'bookings', id: full.data.id,
      customer_id: full.data.customer.id, payment_ids: full.data.payment_ids,
      url: `${wp.config.baseUrl}${apiRoot(wp.config)}/bookings/${full.data.id}` } });
    expect(minimal.changed).toEqual(Object.keys(full.previous_attributes));
    expect(JSON.stringify(minimal)).not.toContain(full.data.customer.email);
    const bad = await app.inject({ url: '/admin/api/events/booking.updated/sample?payload=tiny', headers: auth });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().parameter).toBe('payload');
  });

  it('answers 404 for an unknown event type and 401 without the admin token', async () => {
    const unknown = await app.inject({ url: '/admin/api/events/booking.deleted/sample', headers: auth });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toContain('application/problem+json');
    expect(unknown.json().detail).toContain('booking.deleted');
    expect((await app.inject({ url: '/admin/api/events/booking.created/sample' })).statusCode).toBe(401);
  });
});
