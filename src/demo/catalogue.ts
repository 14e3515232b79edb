// A deterministic sample catalogue for a small travel agency (`waypost demo`, benchmarks): trips, customers,
// bookings with line items (a few legacy engine ones and some cart 3.0 ones), payments including due payments,
// enquiries and reviews. Same seed → same records, with fixed dates, so seeding twice changes nothing.
import type { InputRecords, Resource } from '../records/schemas.js';
import { ENQUIRY_TEXT, FIRST, LAST, PLACES, REVIEW_TEXT, STREETS, TRIPS } from './catalogue-data.js';

export interface DemoRecord<R extends Resource = Resource> {
  resource: R;
  id: number;
  data: InputRecords[R];
}

export interface DemoCatalogue {
  trips: DemoRecord<'trips'>[];
  customers: DemoRecord<'customers'>[];
  bookings: DemoRecord<'bookings'>[];
  payments: DemoRecord<'payments'>[];
  enquiries: DemoRecord<'enquiries'>[];
  reviews: DemoRecord<'reviews'>[];
}

export interface DemoOptions {
  bookings?: number;
  customers?: number;
  seed?: number;
}

/** Booking ids start here, payment ids at PAYMENT_ID_BASE: distinct ranges make the sample easy to read. */
export const BOOKING_ID_BASE = 1000;
export const PAYMENT_ID_BASE = 5000;

/** mulberry32: a tiny seeded PRNG, so the catalogue is the same on every machine. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DAY = 86_400_000;
/** All dates are fixed (not relative to now), so a re-run produces identical records. */
const EPOCH = Date.UTC(2025, 0, 6, 9, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const money = (n: number) => n.toFixed(2);
const ascii = (s: string) => s.normalize('NFKD').replace(/[^\w]/g, '').toLowerCase();
const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

export function demoCatalogue(options: DemoOptions = {}): DemoCatalogue {
  const random = rng(options.seed ?? 2026);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const between = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const bookingCount = options.bookings ?? 200;
  const customerCount = options.customers ?? Math.max(1, Math.ceil(bookingCount * 0.4));

  const trips: DemoRecord<'trips'>[] = TRIPS.map((t, i) => ({
    resource: 'trips',
    id: i + 1,
    data: {
      title: t.title,
      slug: slug(t.title),
      url: `https://agency.example.com/trips/${slug(t.title)}/`,
      status: i === TRIPS.length - 1 ? 'draft' : 'publish',
      code: t.code,
      duration: { value: t.days, unit: 'days' },
      price: {
        amount: money(t.price),
        sale_amount: i % 4 === 1 ? money(Math.round(t.price * 0.9)) : null,
        currency: t.currency,
      },
      destinations: t.destinations,
      activities: t.activities,
      min_age: t.ages?.[0] ?? null,
      max_age: t.ages?.[1] ?? null,
      group_size: { min: t.group[0], max: t.group[1] },
      excerpt: t.excerpt,
      created_at: iso(EPOCH - (60 - i) * DAY),
      updated_at: iso(EPOCH - (30 - i) * DAY),
    },
  }));

  const customers: DemoRecord<'customers'>[] = [];
  const usedEmails = new Set<string>();
  for (let i = 0; i < customerCount; i++) {
    const first = FIRST[i % FIRST.length];
    const last = LAST[(i * 7 + Math.floor(i / FIRST.length)) % LAST.length];
    let email = `${ascii(first)}.${ascii(last)}@example.com`;
    for (let n = 2; usedEmails.has(email); n++) email = `${ascii(first)}.${ascii(last)}${n}@example.com`;
    usedEmails.add(email);
    const [city, country, postcode] = pick(PLACES);
    customers.push({
      resource: 'customers',
      id: i + 1,
      data: {
        email, first_name: first, last_name: last,
        phone: `+${between(1, 98)} ${between(100, 999)} ${between(100, 999)} ${between(1000, 9999)}`,
        address: {
          line1: `${between(1, 240)} ${pick(STREETS)}`, city, state: null, postcode, country,
        },
        created_at: iso(EPOCH + i * 0.37 * DAY),
        updated_at: iso(EPOCH + i * 0.37 * DAY),
      },
    });
  }

  const bookings: DemoRecord<'bookings'>[] = [];
  const payments: DemoRecord<'payments'>[] = [];
  const span = 660 * DAY; // bookings spread over ~22 months from EPOCH
  for (let i = 0; i < bookingCount; i++) {
    const id = BOOKING_ID_BASE + i + 1;
    const customer = customers[Math.floor(random() * customers.length)];
    const bookedAt = Math.max(
      EPOCH + Math.floor((i / bookingCount) * span + random() * DAY),
      Date.parse(customer.data.created_at!) + DAY,
    );
    const first = pick(TRIPS.slice(0, -1)); // the draft trip is not bookable
    const tripSeeds = random() < 0.12
      ? [first, pick(TRIPS.filter((t) => t !== first && t.currency === first.currency))]
      : [first];
    const travellers = between(1, 4);
    let start = bookedAt + between(20, 200) * DAY;
    const bookedTrips = tripSeeds.map((t) => {
      const tripId = TRIPS.indexOf(t) + 1;
      const items = [
        { label: 'Adult', quantity: travellers, price: money(t.price), total: money(t.price * travellers) },
      ];
      if (travellers === 1 && random() < 0.5) {
        const supplement = money(Math.round(t.price * 0.2));
        items.push({ label: 'Single supplement', quantity: 1, price: supplement, total: supplement });
      }
      if (random() < 0.3) {
        items.push({ label: 'Airport transfer', quantity: travellers, price: '45.00', total: money(45 * travellers) });
      }
      const trip = {
        trip_id: tripId, title: t.title, start_date: date(start), end_date: date(start + (t.days - 1) * DAY),
        travellers, line_items: items,
      };
      start += t.days * DAY;
      return trip;
    });
    const total = bookedTrips.reduce((sum, t) => sum + t.line_items.reduce((s, li) => s + Number(li.total), 0), 0);
    const r = random();
    const status = r < 0.12 ? 'pending' : r < 0.5 ? 'booked' : r < 0.62 ? 'reserved'
      : r < 0.9 ? 'completed' : 'canceled';
    const deposit = Math.round(total * 0.25);
    const paid = status === 'completed' ? total
      : status === 'booked' ? (random() < 0.4 ? total : deposit)
      : status === 'reserved' || status === 'canceled' ? deposit : 0;
    // 8 in 200 come from before the new calculation engine (hidden from the API); 1 in 16 from the 3.0 cart.
    const legacy = i % 25 === 7;
    const oldCart = !legacy && i % 16 === 3;
    bookings.push({
      resource: 'bookings',
      id,
      data: {
        status,
        booked_at: iso(bookedAt),
        currency: first.currency,
        total_amount: money(total),
        paid_amount: money(paid),
        due_amount: money(total - paid),
        customer: {
          id: customer.id, email: customer.data.email, first_name: customer.data.first_name,
          last_name: customer.data.last_name, phone: customer.data.phone,
        },
        trips: bookedTrips,
        engine_version: legacy ? pick(['6.2.1', '6.5.3', '6.6.0']) : pick(['6.7.0', '6.8.2', '7.0.1']),
        cart_version: oldCart ? '3.0' : pick(['4.0', '4.1', '4.2']),
        created_at: iso(bookedAt),
        updated_at: iso(bookedAt + between(0, 5) * DAY),
      },
    });

    // Payments: the deposit (or the whole amount), then the balance as a due payment when it was paid later.
    const gateway = pick(['stripe', 'paypal', 'bank-transfer']);
    const pay = (amount: number, isDue: boolean, pstatus: InputRecords['payments']['status'], at: number) => {
      payments.push({
        resource: 'payments',
        id: PAYMENT_ID_BASE + payments.length + 1,
        data: {
          booking_id: id, status: pstatus, amount: money(amount), currency: first.currency, gateway,
          transaction_id: gateway === 'bank-transfer'
            ? null
            : `${gateway === 'stripe' ? 'pi' : 'PAY'}_${(id * 7919 + payments.length).toString(36).toUpperCase()}`,
          is_due_payment: isDue,
          paid_at: pstatus === 'completed' || pstatus === 'refunded' ? iso(at) : null,
          created_at: iso(at), updated_at: iso(at),
        },
      });
    };
    if (paid > 0 && paid === total && random() < 0.5) pay(total, false, 'completed', bookedAt + 600_000);
    else if (paid > 0) {
      pay(deposit, false, status === 'canceled' ? 'refunded' : 'completed', bookedAt + 600_000);
      if (paid === total) pay(total - deposit, true, 'completed', bookedAt + between(10, 40) * DAY);
      else if (status !== 'canceled') pay(total - deposit, true, 'pending', bookedAt + between(10, 40) * DAY);
    } else if (status === 'pending' && random() < 0.3) pay(total, false, 'failed', bookedAt + 600_000);
  }

  const enquiryCount = Math.max(5, Math.round(bookingCount / 8));
  const enquiries: DemoRecord<'enquiries'>[] = Array.from({ length: enquiryCount }, (_, i) => {
    const first = pick(FIRST);
    const last = pick(LAST);
    const trip = pick(trips);
    return {
      resource: 'enquiries',
      id: i + 1,
      data: {
        full_name: `${first} ${last}`, email: `${ascii(first)}.${ascii(last)}.enquiry${i + 1}@example.com`,
        phone: random() < 0.6 ? `+${between(1, 98)} ${between(100, 999)} ${between(1000, 9999)}` : null,
        country: pick(PLACES)[1],
        message: pick(ENQUIRY_TEXT),
        trip: { id: trip.id, title: trip.data.title },
        created_at: iso(EPOCH + Math.floor(random() * span)),
      },
    };
  });

  const completed = bookings.filter((b) => b.data.status === 'completed');
  const reviewable = completed.length ? completed : bookings;
  const reviews: DemoRecord<'reviews'>[] = Array.from({ length: Math.max(5, Math.round(bookingCount / 5)) }, (_, i) => {
    const b = pick(reviewable).data;
    return {
      resource: 'reviews',
      id: i + 1,
      data: {
        trip_id: b.trips![0].trip_id,
        author_name: `${b.customer!.first_name} ${b.customer!.last_name!.charAt(0)}.`,
        rating: random() < 0.1 ? 3 : random() < 0.4 ? 4 : 5,
        content: pick(REVIEW_TEXT),
        created_at: iso(Date.parse(b.trips![0].end_date!) + between(2, 20) * DAY),
      },
    };
  });

  return { trips, customers, bookings, payments, enquiries, reviews };
}

/** The catalogue in write order (trips and customers before the bookings that name them). */
export function demoRecords(catalogue: DemoCatalogue): DemoRecord[] {
  return [
    ...catalogue.trips, ...catalogue.customers, ...catalogue.bookings, ...catalogue.payments, ...catalogue.enquiries,
    ...catalogue.reviews,
  ];
}
