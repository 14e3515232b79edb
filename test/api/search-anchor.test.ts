// A long search led by its rarest piece (src/api/search-anchor.ts) answers exactly what the whole search matches:
// the same records, totals and pages, for needles whose pieces are common, rare or absent, with the characters the
// SQL has to escape. 30 customers' e-mail addresses share "@example.com"; a few hold a rare number.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/db.js';
import { COUNTED_MATCHES } from '../../src/api/list-tuning.js';
import { searchLead, searchPieces } from '../../src/api/search-anchor.js';
import { apiFixture, booking, parseLinks, type ApiFixture } from './setup.js';

const ids = (body: Array<{ id: number }>) => body.map((r) => r.id);
const email = (i: number) => (i % 10 === 3 ? `ana.${i}77713@example.com` : `maria.santos.${i}@example.com`);

describe('search pieces', () => {
  it('spreads at most six 6-character pieces from the first character to the last; short searches have none', () => {
    expect(searchPieces('silva')).toEqual([]);
    expect(searchPieces('kowalski.')).toEqual([]);
    expect(searchPieces('kowalski.1')).toEqual(['kowals', 'walski', 'lski.1']);
    expect(searchPieces('33334@example')).toEqual(['33334@', '334@ex', '@examp', 'xample']);
    const long = searchPieces('a'.repeat(10) + 'b'.repeat(40));
    expect(long.length).toBeLessThanOrEqual(6);
  });
});

describe.each(DIALECTS)('search led by a rare piece on %s', (dialect) => {
  let f: ApiFixture;
  beforeAll(async () => {
    f = await apiFixture(dialect);
    for (let i = 1; i <= 30; i++) {
      await f.wp.put('bookings', i, booking({
        status: i % 2 === 0 ? 'completed' : 'booked',
        customer: { id: i, email: email(i), first_name: i === 5 ? 'O"Neil 100%_sure' : 'Maria', last_name: 'Santos' },
      }));
    }
  });
  afterAll(async () => f.wp.close());

  it('picks the rare piece to lead, and none when every piece is common', async () => {
    // "77713@" is in 3 addresses; every other piece of the needle is in all 30.
    const rare = await searchLead(f.wp.core, 'bookings', '77713@example.com', COUNTED_MATCHES);
    expect(rare).toMatchObject({ exact: false });
    expect(typeof rare === 'object' && rare?.ids.sort((a, b) => a - b)).toEqual([3, 13, 23]);
    expect(await searchLead(f.wp.core, 'bookings', 'zzzzzzz@example.com', COUNTED_MATCHES)).toMatchObject({ ids: [] });
    // Every piece is in all 30: none leads when the bound is below that.
    expect(await searchLead(f.wp.core, 'bookings', 'santos.21@example.com', 20)).toBeNull();
    // A short search is probed whole: its records, or "common" past the bound.
    const short = await searchLead(f.wp.core, 'bookings', '77713', COUNTED_MATCHES);
    expect(short).toMatchObject({ exact: true });
    expect(typeof short === 'object' && short?.ids.sort((a, b) => a - b)).toEqual([3, 13, 23]);
    expect(await searchLead(f.wp.core, 'bookings', 'santos', 20)).toBe('common');
  });

  it('finds exactly the records holding the whole search, with its total, in id order, page by page', async () => {
    const rare = await f.get('/bookings?search=77713@example.com&perpage=2');
    expect(rare.statusCode).toBe(200);
    expect(ids(rare.json())).toEqual([23, 13]);
    expect(rare.headers['x-total-count']).toBe('3');
    const next = parseLinks(rare.headers.link).next;
    expect(ids((await f.get(next.slice(next.indexOf('/bookings')))).json())).toEqual([3]);
    // The rare piece is in the three, but the whole search in none of them.
    expect((await f.get('/bookings?search=77713@example.org')).json()).toEqual([]);
    // A piece no record holds: nothing, and a total of 0.
    const none = await f.get('/bookings?search=maria.santos.999@example.com');
    expect(none.json()).toEqual([]);
    expect(none.headers['x-total-count']).toBe('0');
    // Common pieces only: the search leads as before.
    expect(ids((await f.get('/bookings?search=santos.21@example.com')).json())).toEqual([21]);
    expect((await f.get('/bookings?search=@example.com&perpage=100')).json()).toHaveLength(30);
  });

  it('keeps other filters, and the characters SQL escapes, exact', async () => {
    expect(ids((await f.get('/bookings?search=77713@example.com&status=booked')).json())).toEqual([23, 13, 3]);
    expect(ids((await f.get('/bookings?search=77713@example.com&status=completed')).json())).toEqual([]);
    const quoted = await f.get(`/bookings?search=${encodeURIComponent('o"neil 100%_sure santos')}`);
    expect(ids(quoted.json())).toEqual([5]);
    expect((await f.get(`/bookings?search=${encodeURIComponent('o"neil 100x_sure')}`)).json()).toEqual([]);
    expect((await f.get(`/bookings?search=${encodeURIComponent('o"neil 100%xsure')}`)).json()).toEqual([]);
  });
});
