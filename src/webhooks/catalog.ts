// The 9 event types a webhook can subscribe to (DESIGN.md "Event kinds"; booking.canceled and booking.completed from
// issue 36), with the console's labels.

export interface EventTypeInfo {
  type: EventType;
  label: string;
  description: string;
}

export const EVENT_TYPE_NAMES = [
  'booking.created',
  'booking.updated',
  'booking.canceled',
  'booking.completed',
  'booking.payment.completed',
  'booking.due.payment.completed',
  'customer.created',
  'customer.erased',
  'enquiry.created',
  'review.created',
] as const;

export type EventType = (typeof EVENT_TYPE_NAMES)[number];

export const EVENT_TYPES: readonly EventTypeInfo[] = [
  { type: 'booking.created', label: 'Booking Created', description: 'A booking is seen for the first time.' },
  { type: 'booking.updated', label: 'Booking Updated', description: 'An existing booking changes.' },
  { type: 'booking.canceled', label: 'Booking Canceled', description: 'An existing booking becomes canceled.' },
  { type: 'booking.completed', label: 'Booking Completed', description: 'An existing booking becomes completed.' },
  {
    type: 'booking.payment.completed', label: 'Booking Payment Completed',
    description:
      'A payment of a booking becomes paid (completed, captured, partially paid, check or voucher received).',
  },
  {
    type: 'booking.due.payment.completed', label: 'Booking Due Payment Completed',
    description: 'A due (balance) payment of a booking becomes paid.',
  },
  {
    type: 'customer.created', label: 'Customer Created',
    description: 'A new customer (or a new e-mail on a booking) is seen.',
  },
  {
    type: 'customer.erased', label: 'Customer Erased',
    description: 'A customer\'s personal data was erased (a privacy request): erase your copy too.',
  },
  { type: 'enquiry.created', label: 'Enquiry Created', description: 'A trip enquiry is created.' },
  { type: 'review.created', label: 'Review Created', description: 'A trip review is created.' },
];

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPE_NAMES as readonly string[]).includes(value);
}

/** When each event fires, in full: docs/webhooks.md "Events" and the OpenAPI `webhooks` section say this. */
export const EVENT_FIRES_WHEN: Readonly<Record<EventType, string>> = {
  'booking.created': 'a booking id is seen for the first time',
  'booking.updated': 'an existing booking really changes (a repeated PUT, or a new `updated_at` alone, fires nothing); '
    + '`previous_attributes` holds the changed fields\' values before the change',
  'booking.canceled': 'an existing booking\'s status becomes `canceled` (fired beside `booking.updated`, with the same '
    + '`previous_attributes`); a booking first seen canceled fires only `booking.created`',
  'booking.completed': 'an existing booking\'s status becomes `completed` (fired beside `booking.updated`, with the '
    + 'same `previous_attributes`); a booking first seen completed fires only `booking.created`',
  'booking.payment.completed': 'a payment becomes paid: reaches `completed`, `captured`, `partially-paid`, '
    + '`check-received` or `voucher-received` from a status that is not paid (once per payment, even if it is later '
    + 'refunded and paid again); waiting statuses (`check-waiting`, `voucher-waiting`) do not fire',
  'booking.due.payment.completed': 'the same, for a payment with `is_due_payment: true`',
  'customer.created': 'a customer id is seen first, including a new customer embedded in a booking',
  'customer.erased': 'a person\'s personal data is erased in Waypost (`waypost privacy erase`, the console, the admin '
    + 'or host API, or WordPress\'s *Erase Personal Data*): `data` is the customer with every personal field emptied, '
    + 'so a receiver finds its copy by `id` and erases it too; one event per customer record the person had',
  'enquiry.created': 'an enquiry is created',
  'review.created': 'a review is created',
};

/** The record each event's `data` carries (payment events: the payment). */
export const EVENT_RESOURCE = {
  'booking.created': 'bookings',
  'booking.updated': 'bookings',
  'booking.canceled': 'bookings',
  'booking.completed': 'bookings',
  'booking.payment.completed': 'payments',
  'booking.due.payment.completed': 'payments',
  'customer.created': 'customers',
  'customer.erased': 'customers',
  'enquiry.created': 'enquiries',
  'review.created': 'reviews',
} as const satisfies Record<EventType, string>;
