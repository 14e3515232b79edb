// Lists that stay O(perpage) at a million records, as a client sees them: every combination of filters pages
// through exactly the matching records in order; totals come from maintained counters (no filter, status alone) or
// a bounded count, and are left out past it; page numbers stop at a bound and point to `after`; sorts no index can
// serve with a filter answer 400 naming orderby.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { apiFixture, booking, parseLinks, relative, type ApiFixture } from './setup.js';
import { putMany } from '../../src/host/write.js';
import { validateInput } from '../../src/records/validate.js';
import { COUNTED_MATCHES, MAX_OFFSET } from '../../src/api/list-tuning.js';

const STATUSES = ['pending', 'booked', 'completed', 'canceled'];
const at = (minute: number) => new Date(Date.parse('2026-02-01T00:00:00Z') + minute * 60_000).toISOString();

interface Seed {
  id: number; status: string; customer: number; trip: number; last: string; created: string; updated: string }

describe.each(DIALECTS)('REST API lists at scale on %s', (dialect) => {
  let f: ApiFixture;
  const seeds: Seed[] = [];

  beforeAll(async () => {
    f = await apiFixture(dialect);
    for (let i = 1; i <= 60; i++) {
      const s: Seed = {
        id: i, status: STATUSES[(i * 7) % 4], customer: 1 + (i % 5), trip: 1 + (i % 3), last: i % 4 === 0 ? 'Silva'
          : 'Costa',
        created: at((i * 37) % 61), updated: at(100 + ((i * 11) % 17)),
      };
      seeds.push(s);
      await f.wp.put('bookings', i, booking({
        status: s.status, created_at: s.created, updated_at: s.updated,
        customer: { id: s.customer, email: `c${s.customer}@example.com`, first_name: 'Ana', last_name: s.last },
        trips: [{ trip_id: s.trip, title: `Trip ${s.trip}` }],
      }));
    }
  });
  afterAll(async () => f?.wp.close());

  /** Every page of a list, following `next`. */
  async function all(path: string): Promise<number[]> {
    const out: number[] = [];
    let next: string | undefined = path;
    while (next) {
      const res = await f.get(next);
      expect(res.statusCode, res.body).toBe(200);
      out.push(...(res.json() as Array<{ id: number }>).map((r) => r.id));
      const link = parseLinks(res.headers.link).next;
      next = link ? relative(link, f.root) : undefined;
    }
    return out;
  }

  const sorted = (rows: Seed[], key: 'id' | 'created' | 'updated', order: 'asc' | 'desc') => rows
    .slice().sort((a, b) => {
      const c = key === 'id' ? a.id - b.id : a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : a.id - b.id;
      return order === 'asc' ? c : -c;
    }).map((s) => s.id);

  it('pages through exactly the matches of every filter combination, in order', async () => {
    const combos: Array<[string, (s: Seed) => boolean]> = [
      ['', () => true],
      ['status=booked', (s) => s.status === 'booked'],
      ['customer_id=3', (s) => s.customer === 3],
      ['email=C2@example.com', (s) => s.customer === 2],
      ['trip_id=2', (s) => s.trip === 2],
      ['status=pending&trip_id=1', (s) => s.status === 'pending' && s.trip === 1],
      ['customer_id=4&trip_id=3', (s) => s.customer === 4 && s.trip === 3],
      ['status=completed&customer_id=1', (s) => s.status === 'completed' && s.customer === 1],
    ];
    for (const [filter, match] of combos) {
      for (const [orderby, key] of [['id', 'id'], ['created_at', 'created'], ['updated_at', 'updated']] as const) {
        for (const order of ['asc', 'desc'] as const) {
          const got = await all(`/bookings?perpage=7&orderby=${orderby}&order=${order}${filter ? `&${filter}` : ''}`);
          expect(got, `${filter} ${orderby} ${order}`).toEqual(sorted(seeds.filter(match), key, order));
        }
      }
    }
    const silva = seeds.filter((s) => s.last === 'Silva');
    expect(await all('/bookings?perpage=4&search=silva&order=asc')).toEqual(sorted(silva, 'id', 'asc'));
    expect(await all('/bookings?perpage=4&search=silva&status=booked'))
      .toEqual(sorted(silva.filter((s) => s.status === 'booked'), 'id', 'desc'));
    expect(await all('/bookings?perpage=3&search=silva&customer_id=4'))
      .toEqual(sorted(silva.filter((s) => s.customer === 4), 'id', 'desc'));
    const since = at(108);
    expect(await all(`/bookings?perpage=5&modified_after=${encodeURIComponent(since)}&orderby=updated_at&order=asc`))
      .toEqual(sorted(seeds.filter((s) => s.updated > since), 'updated', 'asc'));
    expect(await all(`/bookings?perpage=5&modified_after=${encodeURIComponent(since)}&trip_id=1&order=asc`))
      .toEqual(sorted(seeds.filter((s) => s.updated > since && s.trip === 1), 'updated', 'asc'));
  });

  it('keeps the status totals exact through creates, status changes and deletes', async () => {
    const totals = async () => Object.fromEntries(await Promise.all(STATUSES.map(async (s) => {
      const res = await f.get(`/bookings?status=${s}&perpage=1`);
      return [s, Number(res.headers['x-total-count'])];
    })));
    const expected = () => Object.fromEntries(STATUSES.map((s) => [s, seeds.filter((x) => x.status === s).length]));
    expect(await totals()).toEqual(expected());
    for (const s of seeds.slice(0, 10)) {
      s.status = 'canceled';
      await f.wp.put('bookings', s.id, booking({
        status: 'canceled', created_at: s.created, updated_at: s.updated,
        customer: { id: s.customer, email: `c${s.customer}@example.com`, first_name: 'Ana', last_name: s.last },
        trips: [{ trip_id: s.trip, title: `Trip ${s.trip}` }],
      }));
    }
    const removed = seeds.splice(10, 3);
    for (const s of removed) await f.wp.delete('bookings', s.id);
    expect(await totals()).toEqual(expected());
    // Combinations count the matches (bounded): exact here.
    const combo = await f.get('/bookings?status=canceled&trip_id=2');
    expect(combo.headers['x-total-count'])
      .toBe(String(seeds.filter((s) => s.status === 'canceled' && s.trip === 2).length));
  });

  it(`leaves the total out when more than ${COUNTED_MATCHES} records pass the narrowest filter; next still pages`,
    async () => {
    const items = Array.from({ length: COUNTED_MATCHES + 5 }, (_, i) => ({
      resource: 'bookings' as const, id: 1000 + i,
      input: validateInput('bookings', booking({ status: i % 2 ? 'pending' : 'booked',
        customer: { id: 99, email: 'bulk@example.com' },
        trips: [{ trip_id: 42, title: 'Bulk trip' }] })),
    }));
    await putMany(f.wp.core, items, { events: false });
    const res = await f.get('/bookings?trip_id=42&perpage=100');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBeUndefined();
    expect(res.headers['x-total-pages']).toBeUndefined();
    const links = parseLinks(res.headers.link);
    expect(links.next).toContain('after=');
    expect(links.last).toBeUndefined();
    // The unfiltered total is a maintained counter: always there.
    expect(Number((await f.get('/bookings?perpage=1')).headers['x-total-count'])).toBe(seeds.length + items.length);
    // Combined with a broad driving filter, the total stays unknown even when the matches are fewer: counting them
    // would walk all of the trip's bookings. A narrow driving filter is counted exactly.
    expect((await f.get('/bookings?trip_id=42&status=pending')).headers['x-total-count']).toBeUndefined();
    expect((await f.get('/bookings?customer_id=3&status=booked')).headers['x-total-count'])
      .toBe(String(seeds.filter((x) => x.customer === 3 && x.status === 'booked').length));
    // A search more records hold than are counted: no total, and each of them once across the pages.
    const found: number[] = [];
    for (let path: string | undefined = '/bookings?search=bulk@&perpage=100'; path;) {
      const pageOf = await f.get(path);
      expect(pageOf.headers['x-total-count']).toBeUndefined();
      found.push(...(pageOf.json() as Array<{ id: number }>).map((b) => b.id));
      const next = parseLinks(pageOf.headers.link).next;
      path = next ? next.slice(next.indexOf('/bookings')) : undefined;
    }
    expect(found).toEqual(items.map((i) => i.id).reverse());
    // Page mode without a known total: next as long as a row follows.
    const page = await f.get('/bookings?trip_id=42&perpage=100&page=11');
    expect(page.json()).toHaveLength(5);
    expect(parseLinks(page.headers.link).next).toBeUndefined();
    expect(parseLinks((await f.get('/bookings?trip_id=42&perpage=100&page=10')).headers.link).next)
      .toContain('page=11');
  });

  it('answers 400 naming page for a page deeper than the bound, and points to after', async () => {
    const deepest = MAX_OFFSET / 100 + 1;
    expect((await f.get(`/bookings?perpage=100&page=${deepest}`)).statusCode).toBe(200);
    const res = await f.get(`/bookings?perpage=100&page=${deepest + 1}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'page' });
    expect(res.json().detail).toContain('after');
  });

  it('answers 400 naming orderby for a sort the filters cannot be served in', async () => {
    const search = await f.get('/bookings?search=silva&orderby=created_at');
    expect(search.statusCode).toBe(400);
    expect(search.json()).toMatchObject({ parameter: 'orderby' });
    const since = await f.get('/bookings?modified_after=2026-01-01T00:00:00Z&orderby=id');
    expect(since.statusCode).toBe(400);
    expect(since.json().detail).toContain('updated_at');
  });
});
