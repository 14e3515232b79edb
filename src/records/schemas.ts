// One schema per record (DESIGN.md "Records"): the host's input shape (validated on PUT, SDK and import) and the
// public shape (API responses, webhook payloads, OpenAPI). Both are TypeBox, so types come from the same source.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  BOOKING_STATUSES, BOOKING_STATUS_SPELLINGS, PAYMENT_STATUSES, PAYMENT_STATUS_SPELLINGS,
  type BookingStatusInput, type PaymentStatusInput,
} from './statuses.js';
import {
  ASSIGNED_ID_MIN, Currency, Decimal, Email, Enum, Nullable, RecordId, StatusInput, Text, Timestamp, Version,
} from './schema-parts.js';

// The statuses live in statuses.ts, the schemas' parts in schema-parts.ts; importers reach them here as before.
export * from './statuses.js';
export { ASSIGNED_ID_MIN, Currency, Decimal, RecordId, Timestamp };

// ---------- host input shapes (the id comes from the path; times default to "now") ----------

const Times = { created_at: Type.Optional(Timestamp), updated_at: Type.Optional(Timestamp) };

export const TripInput = Type.Object({
  title: Text(300),
  slug: Type.Optional(Text(300)),
  url: Type.Optional(Nullable(Type.String({ format: 'uri', maxLength: 2000 }))),
  status: Type.Optional(Enum(['publish', 'draft', 'private', 'pending', 'trash'] as const)),
  code: Type.Optional(Nullable(Text(100))),
  // Nullable as the API shows them (null: none), so a host can write back what it read.
  duration: Type.Optional(Nullable(Type.Object({
    value: Type.Integer({ minimum: 0 }),
    unit: Enum(['days', 'nights', 'hours', 'minutes'] as const),
  }, { additionalProperties: false }))),
  price: Type.Optional(Nullable(Type.Object({
    amount: Decimal, sale_amount: Type.Optional(Nullable(Decimal)), currency: Currency,
  }, { additionalProperties: false }))),
  destinations: Type.Optional(Type.Array(Text(200), { maxItems: 100 })),
  activities: Type.Optional(Type.Array(Text(200), { maxItems: 100 })),
  min_age: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 150 }))),
  max_age: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 150 }))),
  group_size: Type.Optional(Type.Object({
    min: Nullable(Type.Integer({ minimum: 0 })), max: Nullable(Type.Integer({ minimum: 0 })),
  }, { additionalProperties: false })),
  excerpt: Type.Optional(Nullable(Text(5000))),
  ...Times,
}, { additionalProperties: false });

const Address = Type.Object({
  line1: Type.Optional(Nullable(Text(300))),
  city: Type.Optional(Nullable(Text(200))),
  state: Type.Optional(Nullable(Text(200))),
  postcode: Type.Optional(Nullable(Text(50))),
  country: Type.Optional(Nullable(Text(100))),
}, { additionalProperties: false });

export const CustomerInput = Type.Object({
  email: Email,
  first_name: Type.Optional(Nullable(Text(200))),
  last_name: Type.Optional(Nullable(Text(200))),
  phone: Type.Optional(Nullable(Text(50))),
  address: Type.Optional(Address),
  ...Times,
}, { additionalProperties: false });

const LineItem = Type.Object({
  label: Text(300), quantity: Type.Integer({ minimum: 0 }), price: Decimal, total: Decimal,
}, { additionalProperties: false });
const BookingTripInput = Type.Object({
  trip_id: RecordId,
  title: Type.Optional(Text(300)),
  start_date: Type.Optional(Nullable(Type.String({ format: 'date' }))),
  end_date: Type.Optional(Nullable(Type.String({ format: 'date' }))),
  travellers: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
  line_items: Type.Optional(Type.Array(LineItem, { maxItems: 200 })),
}, { additionalProperties: false });

export const EmbeddedCustomerInput = Type.Object({
  id: Type.Optional(RecordId),
  email: Email,
  first_name: Type.Optional(Nullable(Text(200))),
  last_name: Type.Optional(Nullable(Text(200))),
  phone: Type.Optional(Nullable(Text(50))),
}, { additionalProperties: false });

export const BookingInput = Type.Object({
  status: StatusInput<BookingStatusInput>(BOOKING_STATUSES, BOOKING_STATUS_SPELLINGS),
  booked_at: Type.Optional(Nullable(Timestamp)),
  currency: Currency,
  total_amount: Decimal,
  paid_amount: Type.Optional(Decimal),
  due_amount: Type.Optional(Decimal),
  customer: Type.Optional(Nullable(EmbeddedCustomerInput)),
  trips: Type.Optional(Type.Array(BookingTripInput, { maxItems: 100 })),
  engine_version: Version,
  cart_version: Version,
  ...Times,
}, { additionalProperties: false });

export const PaymentInput = Type.Object({
  booking_id: RecordId,
  status: StatusInput<PaymentStatusInput>(PAYMENT_STATUSES, PAYMENT_STATUS_SPELLINGS),
  amount: Decimal,
  currency: Currency,
  gateway: Type.Optional(Nullable(Text(100))),
  transaction_id: Type.Optional(Nullable(Text(200))),
  is_due_payment: Type.Optional(Type.Boolean()),
  paid_at: Type.Optional(Nullable(Timestamp)),
  ...Times,
}, { additionalProperties: false });

export const EnquiryInput = Type.Object({
  full_name: Text(300),
  email: Email,
  phone: Type.Optional(Nullable(Text(50))),
  country: Type.Optional(Nullable(Text(100))),
  message: Type.Optional(Nullable(Text(10_000))),
  trip: Type.Optional(Nullable(Type.Object({
    id: RecordId, title: Type.Optional(Text(300)),
  }, { additionalProperties: false }))),
  created_at: Type.Optional(Timestamp),
}, { additionalProperties: false });

export const ReviewInput = Type.Object({
  trip_id: RecordId,
  author_name: Text(300),
  author_email: Type.Optional(Nullable(Email)), // only as a SHA-256, to find a person's reviews (never shown)
  // Star ratings come from a paid add-on: most sites have none (null or absent).
  rating: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 5 }))),
  content: Type.Optional(Nullable(Text(20_000))),
  created_at: Type.Optional(Timestamp),
}, { additionalProperties: false });

// ---------- public shapes ----------

export const Trip = Type.Object({
  id: RecordId,
  title: Type.String(),
  slug: Type.String(),
  url: Nullable(Type.String()),
  status: Type.String(),
  code: Nullable(Type.String()),
  duration: Nullable(Type.Object({ value: Type.Integer(), unit: Type.String() })),
  price: Nullable(Type.Object({ amount: Decimal, sale_amount: Nullable(Decimal), currency: Currency })),
  destinations: Type.Array(Type.String()),
  activities: Type.Array(Type.String()),
  min_age: Nullable(Type.Integer()),
  max_age: Nullable(Type.Integer()),
  group_size: Type.Object({ min: Nullable(Type.Integer()), max: Nullable(Type.Integer()) }),
  excerpt: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { $id: 'Trip', additionalProperties: false });

export const Customer = Type.Object({
  id: RecordId,
  email: Type.String(),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  address: Type.Object({
    line1: Nullable(Type.String()), city: Nullable(Type.String()), state: Nullable(Type.String()),
    postcode: Nullable(Type.String()), country: Nullable(Type.String()),
  }),
  booking_ids: Type.Array(RecordId),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { $id: 'Customer', additionalProperties: false });

export const Booking = Type.Object({
  id: RecordId,
  status: Enum(BOOKING_STATUSES),
  booked_at: Nullable(Timestamp),
  currency: Currency,
  total_amount: Decimal,
  paid_amount: Decimal,
  due_amount: Decimal,
  customer: Nullable(Type.Object({
    id: RecordId, email: Type.String(), first_name: Nullable(Type.String()), last_name: Nullable(Type.String()),
    phone: Nullable(Type.String()),
  })),
  trips: Type.Array(Type.Object({
    trip_id: RecordId,
    title: Type.String(),
    start_date: Nullable(Type.String()),
    end_date: Nullable(Type.String()),
    travellers: Type.Integer(),
    line_items: Type.Array(Type.Object({
      label: Type.String(), quantity: Type.Integer(), price: Decimal, total: Decimal,
    })),
  })),
  payment_ids: Type.Array(RecordId),
  engine_version: Type.String(),
  cart_version: Type.String(),
  data_complete: Type.Boolean({
    description: 'false for bookings made with cart version < 4.0: their line items are not available',
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { $id: 'Booking', additionalProperties: false });

export const Payment = Type.Object({
  id: RecordId,
  booking_id: RecordId,
  status: Enum(PAYMENT_STATUSES),
  amount: Decimal,
  currency: Currency,
  gateway: Nullable(Type.String()),
  transaction_id: Nullable(Type.String()),
  is_due_payment: Type.Boolean(),
  paid_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { $id: 'Payment', additionalProperties: false });

export const Enquiry = Type.Object({
  id: RecordId,
  full_name: Type.String(),
  email: Type.String(),
  phone: Nullable(Type.String()),
  country: Nullable(Type.String()),
  message: Nullable(Type.String()),
  trip: Nullable(Type.Object({ id: RecordId, title: Type.String() })),
  created_at: Timestamp,
}, { $id: 'Enquiry', additionalProperties: false });

export const Review = Type.Object({
  id: RecordId,
  trip_id: RecordId,
  author_name: Type.String(),
  rating: Nullable(Type.Integer({
    minimum: 1, maximum: 5, description: 'Stars, 1-5; null where the site has no rating add-on',
  })),
  content: Nullable(Type.String()),
  created_at: Timestamp,
}, { $id: 'Review', additionalProperties: false });

export type TripInput = Static<typeof TripInput>;
export type CustomerInput = Static<typeof CustomerInput>;
export type BookingInput = Static<typeof BookingInput>;
export type PaymentInput = Static<typeof PaymentInput>;
export type EnquiryInput = Static<typeof EnquiryInput>;
export type ReviewInput = Static<typeof ReviewInput>;
export type Trip = Static<typeof Trip>;
export type Customer = Static<typeof Customer>;
export type Booking = Static<typeof Booking>;
export type Payment = Static<typeof Payment>;
export type Enquiry = Static<typeof Enquiry>;
export type Review = Static<typeof Review>;

export const RESOURCES = ['trips', 'customers', 'bookings', 'payments', 'enquiries', 'reviews'] as const;
export type Resource = (typeof RESOURCES)[number];
/** The four resources the public read-only API serves. */
export const API_RESOURCES = ['bookings', 'trips', 'customers', 'payments'] as const;
export type ApiResource = (typeof API_RESOURCES)[number];

/**
 * The API resources whose answers a change to these resources can alter: payments and bookings appear in each
 * other's derived fields (payment_ids, booking_ids), a booking in its customer's, and a customer's names in its
 * bookings'.
 */
export function affectedApiResources(changed: readonly string[]): ApiResource[] {
  const out = new Set(changed.filter((r): r is ApiResource => (API_RESOURCES as readonly string[]).includes(r)));
  if (out.has('payments')) out.add('bookings');
  if (out.has('bookings')) out.add('customers');
  // A booking's embedded customer without names shows its customer record's (src/records/present.ts).
  if (changed.includes('customers')) out.add('bookings');
  return [...out];
}

export const INPUT_SCHEMAS = {
  trips: TripInput,
  customers: CustomerInput,
  bookings: BookingInput,
  payments: PaymentInput,
  enquiries: EnquiryInput,
  reviews: ReviewInput,
} as const satisfies Record<Resource, TSchema>;

export const PUBLIC_SCHEMAS = {
  trips: Trip,
  customers: Customer,
  bookings: Booking,
  payments: Payment,
  enquiries: Enquiry,
  reviews: Review,
} as const satisfies Record<Resource, TSchema>;

export interface PublicRecords {
  trips: Trip;
  customers: Customer;
  bookings: Booking;
  payments: Payment;
  enquiries: Enquiry;
  reviews: Review;
}
export interface InputRecords {
  trips: TripInput;
  customers: CustomerInput;
  bookings: BookingInput;
  payments: PaymentInput;
  enquiries: EnquiryInput;
  reviews: ReviewInput;
}
