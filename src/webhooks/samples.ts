// Realistic sample records for `webhooks test`: the payload has exactly the public shape a real event of that type
// carries, so a receiver can be tested end to end. The event is marked `test` in the log.
import type { Booking, Customer, Enquiry, Payment, Resource, Review } from '../records/schemas.js';
import type { EventType } from './catalog.js';

export interface SampleEvent {
  resource: Resource;
  recordId: number;
  data: Booking | Customer | Payment | Enquiry | Review;
  /** Update events: what the sample update changed (the envelope's `previous_attributes`). */
  previousAttributes?: Record<string, unknown>;
}

function sampleBooking(at: string): Booking {
  return {
    id: 900001,
    status: 'booked',
    booked_at: at,
    currency: 'EUR',
    total_amount: '2480.00',
    paid_amount: '620.00',
    due_amount: '1860.00',
    customer: {
      id: 900101, email: 'ana.silva@example.com', first_name: 'Ana', last_name: 'Silva', phone: '+351 912 345 678',
    },
    trips: [{
      trip_id: 900201,
      title: 'Douro Valley Wine Trail (sample)',
      start_date: '2027-05-01',
      end_date: '2027-05-07',
      travellers: 2,
      line_items: [
        { label: 'Adult', quantity: 2, price: '1190.00', total: '2380.00' },
        { label: 'Airport transfer', quantity: 1, price: '100.00', total: '100.00' },
      ],
    }],
    payment_ids: [900301],
    engine_version: '6.8.0',
    cart_version: '4.1',
    data_complete: true,
    created_at: at,
    updated_at: at,
  };
}

function samplePayment(at: string, due: boolean): Payment {
  return {
    id: due ? 900302 : 900301,
    booking_id: 900001,
    status: 'completed',
    amount: due ? '1860.00' : '620.00',
    currency: 'EUR',
    gateway: 'stripe',
    transaction_id: due ? 'pi_sample_balance' : 'pi_sample_deposit',
    is_due_payment: due,
    paid_at: at,
    created_at: at,
    updated_at: at,
  };
}

function sampleCustomer(at: string): Customer {
  return {
    id: 900101,
    email: 'ana.silva@example.com',
    first_name: 'Ana',
    last_name: 'Silva',
    phone: '+351 912 345 678',
    address: { line1: 'Rua das Flores 12', city: 'Porto', state: null, postcode: '4050-262', country: 'PT' },
    booking_ids: [900001],
    created_at: at,
    updated_at: at,
  };
}

/** A sample record for an event type, timestamped `nowMs`. */
export function sampleEvent(type: EventType, nowMs: number): SampleEvent {
  const at = new Date(nowMs).toISOString();
  switch (type) {
    case 'booking.created':
      return { resource: 'bookings', recordId: 900001, data: sampleBooking(at) };
    case 'booking.updated': // a balance payment arrived
      return {
        resource: 'bookings', recordId: 900001,
        data: { ...sampleBooking(at), paid_amount: '2480.00', due_amount: '0.00' },
        previousAttributes: { paid_amount: '620.00', due_amount: '1860.00', updated_at: SAMPLE_EARLIER },
      };
    case 'booking.canceled':
    case 'booking.completed': {
      const status = type === 'booking.canceled' ? 'canceled' : 'completed';
      return {
        resource: 'bookings', recordId: 900001, data: { ...sampleBooking(at), status },
        previousAttributes: { status: 'booked', updated_at: SAMPLE_EARLIER },
      };
    }
    case 'booking.payment.completed':
      return { resource: 'payments', recordId: 900301, data: samplePayment(at, false) };
    case 'booking.due.payment.completed':
      return { resource: 'payments', recordId: 900302, data: samplePayment(at, true) };
    case 'customer.created':
      return { resource: 'customers', recordId: 900101, data: sampleCustomer(at) };
    case 'customer.erased':
      return {
        resource: 'customers', recordId: 900101,
        data: {
          ...sampleCustomer(at), email: '', first_name: null, last_name: null, phone: null,
          address: { line1: null, city: null, state: null, postcode: null, country: null },
        },
      };
    case 'enquiry.created':
      return {
        resource: 'enquiries',
        recordId: 900401,
        data: {
          id: 900401, full_name: 'Ana Silva', email: 'ana.silva@example.com', phone: null, country: 'Portugal',
          message: 'Is the May departure suitable for children aged 8 and 11?',
          trip: { id: 900201, title: 'Douro Valley Wine Trail (sample)' }, created_at: at,
        },
      };
    case 'review.created':
      return {
        resource: 'reviews',
        recordId: 900501,
        data: {
          id: 900501, trip_id: 900201, author_name: 'Ana Silva', rating: 5,
          content: 'Beautiful scenery and a very well organised trip.', created_at: at,
        },
      };
  }
}

/** The `updated_at` of a sample record before its sample update. */
const SAMPLE_EARLIER = '2027-02-27T09:00:00.000Z';

/**
 * The envelope a sample event is delivered in (`{id, type, created_at, data}`, and `previous_attributes` for an
 * update): the catalog's example payload.
 */
export interface SampleEnvelope {
  id: string; type: EventType; created_at: string; data: SampleEvent['data'];
  previous_attributes?: Record<string, unknown>;
}

export function sampleEnvelope(type: EventType, nowMs: number): SampleEnvelope {
  const at = new Date(nowMs).toISOString();
  const { data, previousAttributes } = sampleEvent(type, nowMs);
  return {
    id: 'evt_01a20047759d06fecd7b4cb11389', type, created_at: at, data,
    ...(previousAttributes ? { previous_attributes: previousAttributes } : {}),
  };
}
