// The event feed's request and answer schemas (src/api/events-routes.ts). The envelope is the one webhooks carry
// (src/webhooks/delivery/request.ts); its per-type shapes are the document's `webhooks` section.
import { Type } from '@sinclair/typebox';
import { CONSUMER_PATTERN } from '../feed/consumers.js';
import { EVENT_ID_PATTERN } from '../feed/params.js';
import { EVENT_TYPE_NAMES } from '../webhooks/catalog.js';

export const FEED_QUERY = Type.Object({
  after: Type.Optional(Type.String({
    minLength: 1, maxLength: 512,
    description: 'Start right after this event: an event id (`evt_…`, e.g. the last one you processed) or the cursor '
      + 'of a `Link: rel="next"` header. Older than the retention: 410',
  })),
  types: Type.Optional(Type.String({
    minLength: 1, maxLength: 500,
    description: 'Comma-separated event types; a pattern may end in `.*` (`booking.*,customer.created`)',
  })),
  record: Type.Optional(Type.String({
    maxLength: 40, description: 'Only the events of one record: `booking:1042`, `payment:7`, `customer:12`, …',
  })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Only events at or after this time' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Only events at or before this time' })),
  perpage: Type.Optional(Type.Integer({
    minimum: 1, maximum: 100, default: 10, description: 'Events per page, 1-100',
  })),
  order: Type.Optional(Type.Unsafe<'asc' | 'desc'>({
    type: 'string', enum: ['asc', 'desc'], default: 'asc',
    description: 'asc: oldest first (the feed); desc: newest first (no-code polling triggers)',
  })),
  wait: Type.Optional(Type.Integer({
    minimum: 1, maximum: 30,
    description: 'Long polling: with no matching event yet, hold the request up to this many seconds and answer as '
      + 'soon as one commits (an empty array at the end)',
  })),
  consumer: Type.Optional(Type.String({
    pattern: CONSUMER_PATTERN,
    description: 'Start right after the last event this key acknowledged for the consumer (POST /events/ack)',
  })),
}, { additionalProperties: false });

export const EventEnvelope = Type.Object({
  id: Type.String({ pattern: EVENT_ID_PATTERN, description: 'The event id: the `webhook-id` of its deliveries' }),
  type: Type.Unsafe<string>({ type: 'string', enum: [...EVENT_TYPE_NAMES] }),
  created_at: Type.String({ format: 'date-time', description: 'When the event happened, ISO 8601, UTC' }),
  data: Type.Object({}, {
    additionalProperties: true, description: 'The record as the API shows it (see the `webhooks` section per type)',
  }),
  previous_attributes: Type.Optional(Type.Object({}, {
    additionalProperties: true, description: 'Update events: the changed fields\' values before the write',
  })),
});

export const EventParams = Type.Object({
  id: Type.String({ pattern: EVENT_ID_PATTERN, description: 'Event id (`evt_…`)' }),
}, { additionalProperties: false });

export const AckBody = Type.Object({
  consumer: Type.String({ pattern: CONSUMER_PATTERN, description: 'The consumer\'s name (per API key)' }),
  event_id: Type.String({ pattern: EVENT_ID_PATTERN, description: 'The last event the consumer processed' }),
}, { additionalProperties: false });

export const AckAnswer = Type.Object({
  consumer: Type.String(),
  event_id: Type.String({ description: 'The position: GET /events?consumer=NAME starts right after it' }),
  updated_at: Type.String({ format: 'date-time' }),
}, { additionalProperties: false });
