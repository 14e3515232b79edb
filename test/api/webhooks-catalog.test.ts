// The event catalog in the OpenAPI document (its `webhooks` section): every event with its envelope schema built on
// the API's own record schemas, the request headers, a sample that validates, and real deliveries that validate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { DIALECTS } from '../helpers/db.js';
import { apiFixture, type ApiFixture } from './setup.js';
import { EVENT_TYPE_NAMES, EVENT_TYPES } from '../../src/webhooks/catalog.js';
import { eraseNow } from '../../src/privacy/index.js';
import { PUBLIC_SCHEMAS } from '../../src/records/schemas.js';
import { startWorker, type Worker } from '../../src/webhooks/index.js';
import { startReceiver, type Receiver } from '../webhooks/engine/receiver.js';
import { addWebhook, booking, payment } from '../webhooks/engine/fixtures.js';

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;

const HEADERS = [
  'Content-Type', 'User-Agent', 'X-Waypost-Signature', 'X-Waypost-Event', 'X-Waypost-Delivery', 'X-Waypost-Webhook-Id',
  'X-Waypost-Attempt', 'webhook-id', 'webhook-timestamp', 'webhook-signature',
];

/** The JSON request body an event's POST is documented with. */
const bodyOf = (doc: any, type: string) => doc.webhooks[type].post.requestBody.content['application/json'];

/** A validator per event type, for the body schema the document gives that event (refs resolved in the document). */
function validators(doc: any): Record<string, ValidateFunction> {
  const ajv = addFormats(new Ajv2020({ strict: false }));
  for (const [name, schema] of Object.entries<object>(doc.components.schemas)) {
    ajv.addSchema(schema, `#/components/schemas/${name}`);
  }
  return Object.fromEntries(EVENT_TYPE_NAMES.map((type) => [type, ajv.compile(bodyOf(doc, type).schema)]));
}

describe.each(DIALECTS)('the event catalog in the OpenAPI document on %s', (dialect) => {
  let f: ApiFixture;
  let doc: any;
  beforeAll(async () => {
    f = await apiFixture(dialect, { config: { pollMs: 3_600_000 } });
    doc = (await f.app.inject({ url: `${f.root}/openapi.json` })).json();
  });
  afterAll(async () => f.wp.close());

  it('describes each of the 9 events as a POST with the documented headers and what each answer means', () => {
    expect(Object.keys(doc.webhooks)).toEqual([...EVENT_TYPE_NAMES]);
    for (const info of EVENT_TYPES) {
      const op = doc.webhooks[info.type].post;
      expect(op.summary).toBe(info.label);
      expect(op.description).toContain(info.description);
      expect(op.parameters.map((p: any) => p.name)).toEqual(HEADERS);
      for (const p of op.parameters) {
        expect(p.in, p.name).toBe('header');
        expect(p.description.length, p.name).toBeGreaterThan(10);
      }
      const eventHeader = op.parameters.find((p: any) => p.name === 'X-Waypost-Event');
      expect(eventHeader.schema).toEqual({ type: 'string', const: info.type });
      expect(Object.keys(op.responses).sort()).toEqual(['200', '410', 'default']);
      expect(op.responses['410'].description).toMatch(/disabled at once/);
      expect(op.responses.default.description).toMatch(/retried/);
      const schema = bodyOf(doc, info.type).schema;
      const update = ['booking.updated', 'booking.canceled', 'booking.completed'].includes(info.type);
      const required = ['id', 'type', 'created_at', 'data', ...(update ? ['previous_attributes'] : [])];
      expect(schema.required).toEqual(required);
      expect(schema.properties.type).toEqual({ type: 'string', const: info.type });
    }
  });

  it('gives `data` the public record schemas the API itself uses, not copies that can drift', () => {
    const ref = (type: string) => bodyOf(doc, type).schema.properties.data.$ref;
    expect(ref('booking.created')).toBe('#/components/schemas/Booking');
    expect(ref('booking.due.payment.completed')).toBe('#/components/schemas/Payment');
    expect(ref('enquiry.created')).toBe('#/components/schemas/Enquiry');
    // The same schema the list endpoint answers with, and exactly the TypeBox schema (less its $id).
    const detail = doc.paths[`${f.root}/bookings/{id}`].get.responses['200'].content['application/json'];
    expect(detail.schema.$ref).toBe('#/components/schemas/Booking');
    const published = [['enquiries', 'Enquiry'], ['reviews', 'Review'], ['payments', 'Payment']] as const;
    for (const [resource, name] of published) {
      const { $id: _id, ...typebox } = JSON.parse(JSON.stringify(PUBLIC_SCHEMAS[resource]));
      expect(doc.components.schemas[name], name).toEqual(typebox);
    }
  });

  it('has an example per event that validates against its own schema (and not against another event\'s)', () => {
    const validate = validators(doc);
    for (const type of EVENT_TYPE_NAMES) {
      const example = bodyOf(doc, type).examples.sample.value;
      expect(example.type).toBe(type);
      expect(validate[type](example), `${type}: ${JSON.stringify(validate[type].errors)}`).toBe(true);
    }
    const paymentExample = bodyOf(doc, 'booking.payment.completed').examples.sample.value;
    expect(validate['booking.created']({ ...paymentExample, type: 'booking.created' })).toBe(false);
  });

  it('describes what Waypost really sends: each body a local receiver captures fits its event\'s schema', async () => {
    const receiver: Receiver = await startReceiver();
    let worker: Worker | null = null;
    try {
      await addWebhook(f.wp.core, receiver.url);
      worker = await startWorker(f.wp.core);
      await f.wp.put('trips', 7, { title: 'Douro Valley', destinations: ['Portugal'], activities: ['Walking'] });
      await f.wp.put('bookings', 101, booking());
      await f.wp.put('bookings', 101, booking({ status: 'completed' })); // booking.updated and booking.completed
      await f.wp.put('bookings', 102, booking());
      await f.wp.put('bookings', 102, booking({ status: 'canceled' })); // booking.updated and booking.canceled
      await f.wp.put('payments', 5, payment({ status: 'completed' }));
      await f.wp.put('payments', 6, payment({ status: 'completed', is_due_payment: true }));
      await f.wp.put('enquiries', 3, { full_name: 'Cy Young', email: 'cy@example.com', message: 'Is May good?' });
      await f.wp.put('reviews', 4, { trip_id: 7, author_name: 'Cy Young', rating: 5, content: 'Lovely.' });
      // customer.erased
      await eraseNow(f.wp.core, { email: 'ana@example.com' }, { type: 'cli', name: 'test', ip: null });
      const received = await receiver.waitFor(12, 10_000);
      const validate = validators(doc);
      const seen = new Set<string>();
      for (const req of received) {
        const type = req.headers['x-waypost-event'] as string;
        const body = JSON.parse(req.raw.toString('utf8'));
        expect(body.type).toBe(type);
        expect(validate[type](body), `${type}: ${JSON.stringify(validate[type].errors)}`).toBe(true);
        for (const h of HEADERS) expect(req.headers[h.toLowerCase()], `${type} ${h}`).toBeTruthy();
        seen.add(type);
      }
      expect([...seen].sort()).toEqual([...EVENT_TYPE_NAMES].sort());
    } finally {
      await worker?.stop();
      await receiver.close();
    }
  });

  it('still renders the reference page with the webhooks in its document', async () => {
    expect((await f.app.inject({ url: `${f.root}/docs` })).statusCode).toBe(200);
    const json = (await f.app.inject({ url: `${f.root}/docs/json` })).json();
    expect(Object.keys(json.webhooks)).toHaveLength(EVENT_TYPE_NAMES.length);
  });
});
