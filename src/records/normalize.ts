// Turns validated host input into the stored public shape (everything but the derived id lists), and applies the
// legacy-booking rules. Pure functions: the write path decides what to do with the result.
import { createHash } from 'node:crypto';
import semver from 'semver';
import type {
  Booking, BookingInput, Customer, CustomerInput, Enquiry, EnquiryInput, Payment, PaymentInput, Review, ReviewInput,
  Trip, TripInput,
} from './schemas.js';
import {
  BOOKING_STATUS_SPELLINGS,
  PAYMENT_STATUS_SPELLINGS,
  type BookingStatus,
  type BookingStatusInput,
  type PaymentStatus,
  type PaymentStatusInput,
} from './schemas.js';

/** Bookings made before the new calculation system (engine < 6.7.0) are absent from every API result. */
export const MIN_ENGINE_VERSION = '6.7.0';
/** Bookings whose cart is older than 4.0 are shown with data_complete:false and no line items. */
export const MIN_CART_VERSION = '4.0.0';

export function toSemver(v: string): string {
  const parts = v.split('.');
  while (parts.length < 3) parts.push('0');
  return parts.slice(0, 3).map((p) => String(Number(p))).join('.');
}

/**
 * A version test remembered per version string: a site has a handful of versions, and parsing them for every
 * booking was a few percent of an import's CPU.
 */
function versionTest(test: (version: string) => boolean): (version: string) => boolean {
  const seen = new Map<string, boolean>();
  return (version) => {
    let answer = seen.get(version);
    if (answer === undefined) {
      if (seen.size >= 1000) seen.clear(); // versions are free text: bounded
      seen.set(version, answer = test(version));
    }
    return answer;
  };
}

export const isLegacyEngine = versionTest((v) => semver.lt(toSemver(v), MIN_ENGINE_VERSION));
export const isCompleteCart = versionTest((v) => semver.gte(toSemver(v), MIN_CART_VERSION));

export const iso = (t: string | number | Date): string => new Date(t).toISOString();

/** What toISOString prints for years 0-9999. */
const CANONICAL_ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/**
 * A validated host date-time (validate.ts: RFC 3339 and a time a Date holds) as it is stored. Text already in the
 * stored form is kept as it is: it would print the same, and parsing and printing three times per booking was
 * about 4% of an import's CPU.
 */
export const isoInput = (t: string): string => (CANONICAL_ISO.test(t) ? t : iso(t));
const isoOrNull = (t: string | null | undefined): string | null =>
  (t === null || t === undefined ? null : isoInput(t));

const slugify = (s: string) => s.toLowerCase().normalize('NFKD').replace(/[^\w\s-]/g, '').trim()
  .replace(/[\s_-]+/g, '-').slice(0, 200);

export type StoredTrip = Trip;
export type StoredCustomer = Omit<Customer, 'booking_ids'>;
export type StoredBooking = Omit<Booking, 'payment_ids'>;
export type StoredPayment = Payment;
export type StoredEnquiry = Enquiry;
/**
 * A review as stored: its public fields, and a SHA-256 of its author's e-mail when the host sent one (WordPress
 * comments have it), by which an erasure finds the reviews of an e-mail. present() keeps only public fields.
 */
export type StoredReview = Review & { author_email_sha256?: string | null };

export interface StoredRecords {
  trips: StoredTrip;
  customers: StoredCustomer;
  bookings: StoredBooking;
  payments: StoredPayment;
  enquiries: StoredEnquiry;
  reviews: StoredReview;
}

/** created_at/updated_at are filled in by the write path, which knows whether anything changed. */
type Untimed<T> = Omit<T, 'created_at' | 'updated_at'>;

export function normalizeTrip(id: number, i: TripInput): Untimed<StoredTrip> {
  return {
    id,
    title: i.title,
    slug: i.slug ?? slugify(i.title),
    url: i.url ?? null,
    status: i.status ?? 'publish',
    code: i.code ?? null,
    duration: i.duration ?? null,
    price: i.price
      ? { amount: i.price.amount, sale_amount: i.price.sale_amount ?? null, currency: i.price.currency }
      : null,
    destinations: i.destinations ?? [],
    activities: i.activities ?? [],
    min_age: i.min_age ?? null,
    max_age: i.max_age ?? null,
    group_size: { min: i.group_size?.min ?? null, max: i.group_size?.max ?? null },
    excerpt: i.excerpt ?? null,
  };
}

export function normalizeCustomer(id: number, i: CustomerInput): Untimed<StoredCustomer> {
  const a = i.address ?? {};
  return {
    id,
    email: i.email,
    first_name: i.first_name ?? null,
    last_name: i.last_name ?? null,
    phone: i.phone ?? null,
    address: {
      line1: a.line1 ?? null, city: a.city ?? null, state: a.state ?? null, postcode: a.postcode ?? null,
      country: a.country ?? null,
    },
  };
}

const money = (v: string) => Number(v).toFixed(2);

/** The stored status for one of the product's spellings (`cancelled` → `canceled`); canonical ones pass through. */
export function bookingStatus(s: BookingStatusInput): BookingStatus {
  const spellings: Record<string, BookingStatus> = BOOKING_STATUS_SPELLINGS;
  return Object.hasOwn(spellings, s) ? spellings[s] : (s as BookingStatus);
}

export function paymentStatus(s: PaymentStatusInput): PaymentStatus {
  const spellings: Record<string, PaymentStatus> = PAYMENT_STATUS_SPELLINGS;
  return Object.hasOwn(spellings, s) ? spellings[s] : (s as PaymentStatus);
}

export function normalizeBooking(id: number, i: BookingInput, customerId: number | null): Untimed<StoredBooking> {
  const complete = isCompleteCart(i.cart_version);
  const total = Number(i.total_amount);
  const paid = i.paid_amount !== undefined ? Number(i.paid_amount) : 0;
  return {
    id,
    status: bookingStatus(i.status),
    booked_at: isoOrNull(i.booked_at),
    currency: i.currency,
    total_amount: money(i.total_amount),
    paid_amount: money(String(paid)),
    due_amount: i.due_amount !== undefined ? money(i.due_amount) : (total - paid).toFixed(2),
    customer: i.customer && customerId !== null
      ? {
        id: customerId, email: i.customer.email, first_name: i.customer.first_name ?? null,
        last_name: i.customer.last_name ?? null, phone: i.customer.phone ?? null,
      }
      : null,
    trips: (i.trips ?? []).map((t) => ({
      trip_id: t.trip_id,
      title: t.title ?? '',
      start_date: t.start_date ?? null,
      end_date: t.end_date ?? null,
      travellers: t.travellers ?? 1,
      line_items: complete
        ? (t.line_items ?? []).map((li) => ({
          label: li.label, quantity: li.quantity, price: money(li.price), total: money(li.total),
        }))
        : [],
    })),
    engine_version: i.engine_version,
    cart_version: i.cart_version,
    data_complete: complete,
  };
}

export function normalizePayment(id: number, i: PaymentInput): Untimed<StoredPayment> {
  return {
    id,
    booking_id: i.booking_id,
    status: paymentStatus(i.status),
    amount: money(i.amount),
    currency: i.currency,
    gateway: i.gateway ?? null,
    transaction_id: i.transaction_id ?? null,
    is_due_payment: i.is_due_payment ?? false,
    paid_at: isoOrNull(i.paid_at),
  };
}

export function normalizeEnquiry(id: number, i: EnquiryInput): Omit<StoredEnquiry, 'created_at'> {
  return {
    id,
    full_name: i.full_name,
    email: i.email,
    phone: i.phone ?? null,
    country: i.country ?? null,
    message: i.message ?? null,
    trip: i.trip ? { id: i.trip.id, title: i.trip.title ?? '' } : null,
  };
}

export function normalizeReview(id: number, i: ReviewInput): Omit<StoredReview, 'created_at'> {
  return {
    id, trip_id: i.trip_id, author_name: i.author_name, rating: i.rating ?? null, content: i.content ?? null,
    author_email_sha256: i.author_email ? emailSha256(i.author_email) : null,
  };
}

/** A SHA-256 of an e-mail, lower-cased: how a review's author and an erasure's record name a person. */
export const emailSha256 = (email: string): string =>
  createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
