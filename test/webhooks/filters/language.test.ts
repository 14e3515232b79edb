// The payload filter language (docs/webhooks.md "Filters"): each operator on a matching and a non-matching event,
// all / any nested, arrays walked with `[]`, exists / not exists, and a 400 naming the bad part on save.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import type { EventType } from '../../../src/webhooks/catalog.js';
import { matches } from '../../../src/webhooks/filters/language.js';
import { checkFilter } from '../../../src/webhooks/filters/validate.js';
import { sampleEnvelope } from '../../../src/webhooks/samples.js';

const BOOKINGS: EventType[] = ['booking.created', 'booking.updated'];
const envelope = (over: Record<string, unknown> = {}, prev: Record<string, unknown> | null = null) => {
  const { data } = sampleEnvelope('booking.created', Date.parse('2027-03-01T09:00:00Z'));
  return { data: { ...data, ...over }, previous_attributes: prev };
};
const passes = (filter: unknown, env = envelope(), types = BOOKINGS) => matches(checkFilter(filter, types)!, env);
const refusal = (filter: unknown, types = BOOKINGS): string => {
  try {
    checkFilter(filter, types);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
    return (err as AppError).message;
  }
  throw new Error('the filter was accepted');
};

describe('filter operators (the sample booking: booked, EUR, 2480.00, trip 900201, ana.silva@example.com)', () => {
  const cases: Array<[string, unknown, unknown]> = [
    ['eq', { field: 'data.currency', eq: 'EUR' }, { field: 'data.currency', eq: 'USD' }],
    ['ne', { field: 'data.currency', ne: 'USD' }, { field: 'data.currency', ne: 'EUR' }],
    ['in', { field: 'data.status', in: ['booked', 'completed'] }, { field: 'data.status', in: ['canceled'] }],
    ['not_in', { field: 'data.status', not_in: ['canceled'] }, { field: 'data.status', not_in: ['booked'] }],
    ['gte on an amount string', { field: 'data.total_amount', gte: 1000 }, { field: 'data.total_amount', gte: 2500 }],
    ['gt', { field: 'data.total_amount', gt: 2479.99 }, { field: 'data.total_amount', gt: 2480 }],
    ['lt', { field: 'data.total_amount', lt: '2480.01' }, { field: 'data.total_amount', lt: 2480 }],
    ['lte', { field: 'data.trips[].travellers', lte: 2 }, { field: 'data.trips[].travellers', lte: 1 }],
    ['gt on a time', { field: 'data.created_at', gt: '2027-01-01' }, { field: 'data.created_at', gt: '2028-01-01' }],
    ['ends_with (any case)', { field: 'data.customer.email', ends_with: '@EXAMPLE.com' },
      { field: 'data.customer.email', ends_with: '@partner.com' }],
    ['starts_with', { field: 'data.customer.email', starts_with: 'ana.' },
      { field: 'data.customer.email', starts_with: 'bob' }],
    ['contains', { field: 'data.trips[].title', contains: 'douro' },
      { field: 'data.trips[].title', contains: 'Lisbon' }],
    ['eq through an array', { field: 'data.trips[].trip_id', eq: 900201 }, { field: 'data.trips[].trip_id', eq: 7 }],
    ['eq two arrays deep', { field: 'data.trips[].line_items[].label', eq: 'Airport transfer' },
      { field: 'data.trips[].line_items[].label', eq: 'Child' }],
    ['eq on a list of ids', { field: 'data.payment_ids[]', eq: 900301 }, { field: 'data.payment_ids[]', eq: 1 }],
    ['eq on a boolean', { field: 'data.data_complete', eq: true }, { field: 'data.data_complete', eq: false }],
    ['exists', { field: 'data.customer.email', exists: true }, { field: 'data.booked_at', exists: false }],
  ];
  it.each(cases)('%s: matches one event and not another', (_name, yes, no) => {
    expect(passes(yes)).toBe(true);
    expect(passes(no)).toBe(false);
  });

  it('exists / not exists: null and absent are not there; previous_attributes only when it changed', () => {
    const noCustomer = envelope({ customer: null });
    expect(passes({ field: 'data.customer', exists: false }, noCustomer)).toBe(true);
    expect(passes({ field: 'data.customer.email', exists: true }, noCustomer)).toBe(false);
    expect(passes({ field: 'data.customer.email', ne: 'x@partner.com' }, noCustomer)).toBe(true);
    const statusChanged = { field: 'previous_attributes.status', exists: true };
    expect(passes(statusChanged, envelope({}, { status: 'pending' }))).toBe(true);
    expect(passes(statusChanged, envelope({}, { paid_amount: '0.00' }))).toBe(false);
    expect(passes(statusChanged, envelope())).toBe(false);
  });

  it('all needs every condition, any one of them, nested', () => {
    const eur = { field: 'data.currency', eq: 'EUR' };
    const big = { field: 'data.total_amount', gte: 5000 };
    const partner = { field: 'data.customer.email', ends_with: '@partner.com' };
    expect(passes({ all: [eur, big] })).toBe(false);
    expect(passes({ any: [eur, big] })).toBe(true);
    expect(passes({ all: [eur, { any: [big, partner] }] })).toBe(false);
    const partnerBooking = envelope({ customer: { id: 1, email: 'jo@partner.com', first_name: null, last_name: null,
      phone: null } });
    expect(passes({ all: [eur, { any: [big, partner] }] }, partnerBooking)).toBe(true);
  });

  it('a payment event: amounts and statuses of the payment', () => {
    const { data } = sampleEnvelope('booking.payment.completed', 0);
    const env = { data, previous_attributes: null };
    const types: EventType[] = ['booking.payment.completed'];
    expect(passes({ field: 'data.status', eq: 'completed' }, env, types)).toBe(true);
    expect(passes({ field: 'data.amount', gt: 1000 }, env, types)).toBe(false);
  });
});

describe('a filter is checked on save: a 400 names the bad part', () => {
  it.each([
    [{ field: 'data.stauts', eq: 'booked' }, 'filter.field: unknown field "data.stauts" for booking.created, '
      + 'booking.updated (did you mean "data.status"?)'],
    [{ all: [{ field: 'data.currency', eq: 'EUR' }, { field: 'data.total', gte: 1 }] }, 'filter.all[1].field: unknown'],
    [{ any: [{ field: 'data.status', in: ['booked', 'done'] }] },
      'filter.any[0].in[1]: "done" is not a value of data.status'],
    [{ field: 'data.total_amount', gte: 'lots' }, 'filter.gte: data.total_amount is a number'],
    [{ field: 'data.status', like: 'b%' }, 'filter.like: unknown operator'],
    [{ field: 'data.status', eq: 'booked', ne: 'canceled' }, 'filter: give exactly one operator'],
    [{ field: 'data.status' }, 'filter: give exactly one operator'],
    [{ field: 'data.trips', eq: 7 }, 'filter.eq: data.trips is a list: only exists applies to it'],
    [{ field: 'data.customer.email', ends_with: 5 }, 'filter.ends_with: ends_with compares text'],
    [{ field: 'data.data_complete', gt: true }, 'filter.gt: data.data_complete is true or false'],
    [{ all: [] }, 'filter.all: must be a non-empty list'],
    [{ all: [{ field: 'data.status', exists: 'yes' }] }, 'filter.all[0].exists: must be true or false'],
    [{ any: [{ field: 'data.currency', eq: 'EUR' }], all: [] }, 'filter.any: a group has only "all"'],
    [{ field: 'data.status', in: [] }, 'filter.in: must be a list of 1 to 100 values'],
    [{ field: 'status', eq: 'booked' }, 'filter.field: must be a path such as "data.status"'],
    [['data.status'], 'filter: must be an object'],
    [{ field: 'data.currency', eq: 'x'.repeat(501) }, 'filter.eq: is over 500 characters'],
  ])('%j', (filter, message) => {
    expect(refusal(filter)).toContain(message);
  });

  it('a field of another event type is unknown; previous_attributes only for update events', () => {
    expect(refusal({ field: 'data.rating', gte: 4 })).toContain('unknown field "data.rating"');
    expect(refusal({ field: 'previous_attributes.status', exists: true }, ['booking.created']))
      .toContain('unknown field "previous_attributes.status" for booking.created');
    expect(checkFilter({ field: 'data.rating', gte: 4 }, ['review.created'])).not.toBeNull();
  });

  it('bounds its size: 50 conditions, 5 levels of groups', () => {
    const cond = { field: 'data.currency', eq: 'EUR' };
    expect(refusal({ any: Array.from({ length: 51 }, () => cond) })).toContain('at most 50 conditions');
    let deep: unknown = cond;
    for (let i = 0; i < 6; i++) deep = { all: [deep] };
    expect(refusal(deep)).toContain('groups nest at most 5 deep');
  });
});
