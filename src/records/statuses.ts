// The booking product's statuses and its other spellings of them (DESIGN.md "Records"), apart from the record
// schemas that use them.
// The booking product's own statuses (DESIGN.md "Records"; its booking status list and
// wptravelengine_payment_status()).
export const BOOKING_STATUSES = [
  'pending', 'reserved', 'booked', 'completed', 'canceled', 'refunded', 'failed',
] as const;
export const PAYMENT_STATUSES = [
  'pending', 'completed', 'captured', 'partially-paid', 'check-waiting', 'check-received', 'voucher-waiting',
  'voucher-received', 'refunded', 'failed', 'canceled', 'abandoned',
] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
/** A payment in one of these has been paid (booking.payment.completed); the waiting statuses have not. */
export const PAID_PAYMENT_STATUSES = [
  'completed', 'captured', 'partially-paid', 'check-received', 'voucher-received',
] as const satisfies readonly PaymentStatus[];

/**
 * The product's (and its gateways') other spellings of the same status: accepted on input, stored as the value.
 * Bookings take only the cancel spellings; the rest are payment (gateway) words.
 */
export const BOOKING_STATUS_SPELLINGS = {
  cancel: 'canceled', cancelled: 'canceled',
} as const satisfies Record<string, BookingStatus>;
export const PAYMENT_STATUS_SPELLINGS = {
  complete: 'completed', success: 'completed', settlement: 'completed', capture: 'captured',
  cancel: 'canceled', cancelled: 'canceled', 'voucher-awaiting': 'voucher-waiting',
  deny: 'failed', expire: 'failed', revoked: 'failed',
} as const satisfies Record<string, PaymentStatus>;
export type BookingStatusInput = BookingStatus | keyof typeof BOOKING_STATUS_SPELLINGS;
export type PaymentStatusInput = PaymentStatus | keyof typeof PAYMENT_STATUS_SPELLINGS;
