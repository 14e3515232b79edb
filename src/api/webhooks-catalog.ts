// The event catalog as the OpenAPI 3.1 `webhooks` section (DESIGN.md "Event catalog"): each of the 9 events as the
// POST Waypost sends, its body the envelope around the record's public TypeBox schema (the very schemas the API
// answers with, referenced from components), the request headers, the sample payload as example, and what the
// receiver's status means.
import type { TSchema } from '@sinclair/typebox';
import { PUBLIC_SCHEMAS } from '../records/schemas.js';
import { EVENT_FIRES_WHEN, EVENT_RESOURCE, EVENT_TYPES } from '../webhooks/catalog.js';
import { sampleEnvelope } from '../webhooks/samples.js';
import type { Json } from './openapi-json.js';

// A fixed time, so the document (and its ETag-less JSON) is the same on every request.
const EXAMPLE_TIME = Date.parse('2027-03-01T09:00:00.000Z');

/** The request headers (DESIGN.md "Webhooks" > Request), named for the configured service name. */
export interface WebhookHeader { name: string; description: string; example: string }

export function webhookRequestHeaders(serviceName: string): WebhookHeader[] {
  const x = `X-${serviceName}`;
  return [
    { name: 'Content-Type', description: 'Always `application/json`', example: 'application/json' },
    {
      name: 'User-Agent', description: `\`${serviceName}-Hookshot/<version>\``,
      example: `${serviceName}-Hookshot/1.0.0`,
    },
    {
      name: `${x}-Signature`,
      description: '`sha256=` + hex HMAC-SHA256 of the exact raw body, keyed with the webhook\'s secret string '
        + '(`whsec_…`, used as is). Verify it over the raw bytes received, before parsing. During a secret '
        + 'rotation\'s grace period, comma-separated signatures, one per valid secret (`sha256=<new>,sha256=<old>`): '
        + 'accept the request when any listed value matches.',
      example: 'sha256=5f0c3a9e8d1b2c4f6a7e9d0b1c2a3f4e5d6c7b8a9f0e1d2c3b4a5f6e7d8c9b0a',
    },
    { name: `${x}-Event`, description: 'The event type', example: 'booking.created' },
    {
      name: `${x}-Delivery`,
      description: 'The delivery id: the same on every automatic retry of this delivery (a redelivery is a new one)',
      example: 'dlv_0193a4c2b1e07f3a9c1d2e4b5a6f',
    },
    {
      name: `${x}-Webhook-Id`, description: 'The webhook the delivery belongs to',
      example: 'wh_0193a4c0aa11c2d3e4f5a6b7c8d9',
    },
    { name: `${x}-Attempt`, description: 'The attempt number, 1 to 5', example: '1' },
    {
      name: 'webhook-id',
      description: 'Standard Webhooks message id: the event id (the body\'s `id`), the same on every retry and '
        + 'every redelivery of the event, signed with the body. The key a receiver de-duplicates on.',
      example: 'evt_01a20047759d06fecd7b4cb11389',
    },
    {
      name: 'webhook-timestamp', description: 'Standard Webhooks: Unix seconds when signed; reject old ones (replays)',
      example: '1772355600',
    },
    {
      name: 'webhook-signature',
      description: 'Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed '
        + 'with the base64-decoded part of the secret after `whsec_`; during a secret rotation, space-separated '
        + 'signatures, one per valid secret',
      example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    },
  ];
}

const RESPONSES = {
  200: { description: 'Success: the delivery is done. The answer must come within 30 s; its body is logged.' },
  410: {
    description: 'Gone: the webhook is disabled at once (reason "the receiver answered 410 Gone", critical e-mail)',
  },
  default: {
    description: 'Any other status (and a timeout or network error) is a failed attempt, retried after 1, 5, 15 and '
      + '30 minutes (5 attempts in all); `Retry-After` on a 429 or 503 postpones the next attempt',
  },
};

const schemaName = (schema: TSchema) => String(schema.$id);

/** The events of an update of an existing record: their envelopes carry `previous_attributes`. */
const UPDATE_EVENTS = new Set(['booking.updated', 'booking.canceled', 'booking.completed']);

/** The envelope schema of an event type's body: `data` refers to the record's public schema in components. */
function envelopeSchema(type: string, record: TSchema): Json {
  return {
    type: 'object',
    required: ['id', 'type', 'created_at', 'data'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^evt_', description: 'The event id' },
      type: { type: 'string', const: type },
      created_at: { type: 'string', format: 'date-time', description: 'When the event happened, ISO 8601, UTC' },
      data: { $ref: `#/components/schemas/${schemaName(record)}` },
      ...(UPDATE_EVENTS.has(type) ? {
        previous_attributes: {
          type: 'object', additionalProperties: true,
          description: 'The fields this update changed, each with its value before it (a changed object: the keys '
            + 'that changed; an array: whole). `updated_at` is among them when it changed.',
        },
      } : {}),
    },
    ...(UPDATE_EVENTS.has(type) ? { required: ['id', 'type', 'created_at', 'data', 'previous_attributes'] } : {}),
  };
}

/** What a webhook with `payload: minimal` gets instead (src/webhooks/delivery/minimal.ts), said on every event. */
const MINIMAL = ' A webhook with `payload: "minimal"` gets the same envelope with `data` naming the record instead: '
  + '`resource`, `id`, the related ids (bookings `customer_id`, `trip_ids`, `payment_ids`; payments `booking_id`; '
  + 'customers `booking_ids`; enquiries and reviews `trip_id`) and `url`, the record in the read-only API (`null` for '
  + 'enquiries and reviews); no personal field. An update has `changed`, the changed fields\' names, instead of '
  + '`previous_attributes`.';

/** Adds the `webhooks` section, and the record schemas it refers to that the API's paths do not, to `doc`. */
export function addWebhooksCatalog(doc: Json, serviceName: string): Json {
  const schemas: Json = (doc.components.schemas ??= {});
  const headers = webhookRequestHeaders(serviceName).map((h) => ({
    name: h.name, in: 'header', required: true, description: h.description, schema: { type: 'string' },
    example: h.example,
  }));
  const eventHeader = (type: string, h: Json) => ({ ...h, schema: { type: 'string', const: type }, example: type });
  doc.webhooks = {};
  for (const info of EVENT_TYPES) {
    const record = PUBLIC_SCHEMAS[EVENT_RESOURCE[info.type]];
    // The same TypeBox object the API validates and serialises with, as JSON (its Kind symbols are dropped).
    // (without $id, as @fastify/swagger publishes the API's own).
    if (!schemas[schemaName(record)]) {
      const { $id: _id, ...schema } = JSON.parse(JSON.stringify(record)) as Json;
      schemas[schemaName(record)] = schema;
    }
    doc.webhooks[info.type] = {
      post: {
        operationId: `webhook${info.label.replace(/ /g, '')}`,
        summary: info.label,
        description: `${info.description} Fires when ${EVENT_FIRES_WHEN[info.type]}.${MINIMAL}`,
        security: [],
        parameters: headers.map((h) => (h.name.endsWith('-Event') ? eventHeader(info.type, h) : h)),
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: envelopeSchema(info.type, record),
              examples: {
                sample: { summary: 'The sample `webhooks test` sends', value: sampleEnvelope(info.type, EXAMPLE_TIME) },
              },
            },
          },
        },
        responses: RESPONSES,
      },
    };
  }
  return doc;
}
