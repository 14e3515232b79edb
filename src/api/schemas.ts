// Request and response schemas of the REST API v1. The routes validate with them, Fastify serialises with them
// (nothing leaks that they do not name) and @fastify/swagger turns them into the OpenAPI document.
import { Type, type TSchema } from '@sinclair/typebox';
import {
  Booking, BOOKING_STATUSES, Customer, Payment, PAYMENT_STATUSES, Trip, type ApiResource,
} from '../records/schemas.js';

// A plain JSON Schema `enum` (not a union of literals), so a bad value gets "must be one of …" naming the choices.
const Enum = <T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** Up to 15 digits (the host's ids), or 16 starting 1-8 (Waypost's own range, still a safe integer). */
export const ID_PATTERN = '^(?:[1-9][0-9]{0,14}|[1-8][0-9]{15})$';
const IdParam = (description: string) => Type.String({ pattern: ID_PATTERN, description });

export const ORDERBY = {
  bookings: ['id', 'created_at', 'updated_at'],
  trips: ['id', 'created_at', 'updated_at', 'title'],
  customers: ['id', 'created_at', 'updated_at', 'email'],
  payments: ['id', 'created_at', 'updated_at'],
} as const satisfies Record<ApiResource, readonly string[]>;
export type OrderBy = (typeof ORDERBY)[ApiResource][number];

const common = (resource: ApiResource) => ({
  perpage: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Items per page, 1-100' })),
  page: Type.Optional(Type.Integer({
    minimum: 1, maximum: 1_000_000,
    description: 'Page number (1-based, offset pagination). Without it, follow the `next` link, which uses `after`.',
  })),
  after: Type.Optional(Type.String({
    minLength: 1, maxLength: 512,
    description: 'Opaque cursor from a `Link: rel="next"` header (keyset pagination: fast at any depth)',
  })),
  search: Type.Optional(Type.String({
    minLength: 3, maxLength: 200, description: 'Case-insensitive text search (at least 3 characters)',
  })),
  orderby: Type.Optional(Enum(ORDERBY[resource], {
    description: 'Sort field: id by default; updated_at with modified_after; search results are listed by id',
  })),
  order: Type.Optional(Enum(['asc', 'desc'] as const, { default: 'desc', description: 'Sort direction' })),
  modified_after: Type.Optional(Type.String({
    format: 'date-time', description: 'Only records updated after this ISO 8601 time',
  })),
});

export const LIST_QUERIES = {
  bookings: Type.Object({
    ...common('bookings'),
    status: Type.Optional(Enum(BOOKING_STATUSES, { description: 'Only bookings with this status' })),
    customer_id: Type.Optional(IdParam('Only bookings of this customer')),
    trip_id: Type.Optional(IdParam('Only bookings that include this trip')),
    email: Type.Optional(Type.String({
      minLength: 1, maxLength: 254, description: 'Only bookings whose customer has this e-mail (case-insensitive)',
    })),
  }, { additionalProperties: false }),
  trips: Type.Object({
    ...common('trips'),
    status: Type.Optional(Enum(['publish', 'draft', 'private', 'pending', 'trash'] as const, {
      description: 'Only trips with this status',
    })),
  }, { additionalProperties: false }),
  customers: Type.Object({
    ...common('customers'),
    email: Type.Optional(Type.String({
      minLength: 1, maxLength: 254, description: 'Only the customer with this e-mail (case-insensitive)',
    })),
  }, { additionalProperties: false }),
  payments: Type.Object({
    ...common('payments'),
    status: Type.Optional(Enum(PAYMENT_STATUSES, { description: 'Only payments with this status' })),
    booking_id: Type.Optional(IdParam('Only payments of this booking')),
  }, { additionalProperties: false }),
} as const satisfies Record<ApiResource, TSchema>;

export interface ListQuery {
  perpage?: number;
  page?: number;
  after?: string;
  search?: string;
  orderby?: string;
  order?: 'asc' | 'desc';
  modified_after?: string;
  status?: string;
  customer_id?: string;
  trip_id?: string;
  booking_id?: string;
  email?: string;
}

export const DetailParams = Type.Object({
  id: IdParam('Record id (positive integer)'),
}, { additionalProperties: false });
export const NoQuery = Type.Object({}, { additionalProperties: false });

export const RECORD_SCHEMAS = { bookings: Booking, trips: Trip, customers: Customer, payments: Payment } as const;

export const ProblemSchema = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String(),
  code: Type.String({
    description: 'Machine-readable reason, e.g. missing_credentials, invalid_parameter, rate_limited',
  }),
  parameter: Type.Optional(Type.String({ description: 'The invalid parameter (400)' })),
}, { $id: 'Problem', description: 'RFC 9457 problem details (application/problem+json)' });

export const TestAnswer = Type.Object({
  ok: Type.Literal(true),
  key: Type.String({ description: 'The id of the API key used' }),
  permissions: Type.Array(Type.String()),
}, { additionalProperties: false });
