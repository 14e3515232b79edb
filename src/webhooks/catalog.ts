// The 7 event types a webhook can subscribe to (DESIGN.md "Event kinds"), with the console's labels.

export interface EventTypeInfo {
  type: EventType;
  label: string;
  description: string;
}

export const EVENT_TYPE_NAMES = [
  'booking.created',
  'booking.updated',
  'booking.payment.completed',
  'booking.due.payment.completed',
  'customer.created',
  'enquiry.created',
  'review.created',
] as const;

export type EventType = (typeof EVENT_TYPE_NAMES)[number];

export const EVENT_TYPES: readonly EventTypeInfo[] = [
  { type: 'booking.created', label: 'Booking Created', description: 'A booking is seen for the first time.' },
  { type: 'booking.updated', label: 'Booking Updated', description: 'An existing booking changes.' },
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
  { type: 'enquiry.created', label: 'Enquiry Created', description: 'A trip enquiry is created.' },
  { type: 'review.created', label: 'Review Created', description: 'A trip review is created.' },
];

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPE_NAMES as readonly string[]).includes(value);
}
