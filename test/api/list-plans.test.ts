// Every list shape the REST API offers walks one index in the requested order: its query plan never sorts the
// matches (SQLite "USE TEMP B-TREE", PostgreSQL "Sort"), never reads a whole table, never builds a whole set first.
// The shapes: every filter alone, every pair, all together; each sort field they allow; both directions; first
// page, `after` cursor and `page`. On PostgreSQL the planner is told to avoid sorts, sequential and bitmap scans, so a
// Sort or Seq Scan in the plan means no index can serve the shape (at a million rows it would sort the matches).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { DIALECTS } from '../helpers/db.js';
import { testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';
import {
  driverOf, filtersOf, pageQuery, countQueries, searchCandidates, sortOf, type Driver, type Filters, type SearchPlan,
  type Shape,
} from '../../src/api/list-plan.js';
import { ORDERBY, type ListQuery } from '../../src/api/schemas.js';
import type { ApiResource } from '../../src/records/schemas.js';

const FILTERS: Record<ApiResource, Partial<ListQuery>> = {
  bookings: { status: 'booked', customer_id: '7', email: 'ana@example.com', trip_id: '3', search: 'silva',
    modified_after: '2026-01-01T00:00:00Z' },
  trips: { status: 'publish', search: 'douro', modified_after: '2026-01-01T00:00:00Z' },
  customers: { email: 'ana@example.com', search: 'silva', modified_after: '2026-01-01T00:00:00Z' },
  payments: { status: 'completed', booking_id: '12', search: 'stripe', modified_after: '2026-01-01T00:00:00Z' },
};

function subsets<T>(items: T[]): T[][] {
  const out: T[][] = [[], ...items.map((i) => [i])];
  for (let a = 0; a < items.length; a++) for (let b = a + 1; b < items.length; b++) out.push([items[a], items[b]]);
  out.push(items);
  return out;
}

interface Case { name: string; shape: Shape }

function cases(resource: ApiResource): Case[] {
  const out: Case[] = [];
  const all = FILTERS[resource];
  for (const names of subsets(Object.keys(all) as Array<keyof ListQuery>)) {
    const q: ListQuery = Object.fromEntries(names.map((n) => [n, all[n]]));
    const plain = filtersOf(q);
    const driver = driverOf(plain);
    // A search that drives is planned as each lead its probe can give (search-anchor.ts): the ids of the records
    // holding it or a rare piece of it, more matches than are counted, guessed so by PostgreSQL's planner, or none (a
    // long search of common pieces).
    const leads: Record<string, [Filters, SearchPlan?]> = {
      '': [plain],
      ' (led by ids)': [plain, { by: 'ids', ids: [3, 5, 9], exact: true }],
      ' (led by a piece)': [{ ...plain, search: `x${plain.search}x9` }, { by: 'ids', ids: [3, 5, 9], exact: false }],
      ' (common)': [plain, { by: 'walk', guessed: false }],
      ' (guessed)': [plain, { by: 'walk', guessed: true }],
    };
    for (const [lead, [filters, search]] of Object.entries(driver === 'search' ? leads : { '': [plain] as const })) {
      const label = `${resource}?${names.join('&') || '(none)'}${lead}`;
      out.push(...sortsAndPages(resource, label, filters, driver, sortOf(q, filters, driver), search));
    }
  }
  return out;
}

function sortsAndPages(resource: ApiResource, label: string, filters: Filters, driver: Driver, implied: string,
  search?: SearchPlan): Case[] {
  const out: Case[] = [];
  // A sort the filters do not fix: every sort field; else the one they imply (others answer 400).
  const free = driver !== 'search' && filters.modifiedAfter === undefined;
  for (const orderby of free ? ORDERBY[resource] : [implied]) {
    for (const order of ['asc', 'desc'] as const) {
      for (const mode of ['first', 'after', 'page'] as const) {
        const cursor = mode === 'after' ? { value: orderby === 'id' ? 5 : 'm', id: 5 } : null;
        out.push({
          name: `${label} orderby=${orderby} ${order} ${mode}`,
          shape: {
            resource, filters, driver, orderby, order, cursor, limit: 11, offset: mode === 'page' ? 20 : 0, search,
          },
        });
      }
    }
  }
  return out;
}

const RESOURCES: ApiResource[] = ['bookings', 'trips', 'customers', 'payments'];

describe.each(DIALECTS)('list query plans on %s', (dialect) => {
  let wp: Waypost;
  beforeAll(async () => {
    wp = await testWaypost({ dialect });
  });
  afterAll(async () => wp?.close());

  async function plan(query: { sql: string; parameters: readonly unknown[] }, bitmaps = false): Promise<string[]> {
    if (dialect === 'sqlite') {
      const rows = wp.core.store.sqlite!.prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
        .all(...query.parameters as unknown[]);
      return (rows as Array<{ detail: string }>).map((r) => r.detail);
    }
    return wp.core.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      await sql`SET LOCAL enable_sort = off`.execute(trx);
      if (!bitmaps) await sql`SET LOCAL enable_bitmapscan = off`.execute(trx);
      await sql`SET LOCAL enable_hashjoin = off`.execute(trx);
      await sql`SET LOCAL enable_material = off`.execute(trx);
      const { rows } = await trx.executeQuery(CompiledQuery.raw(`EXPLAIN ${query.sql}`, [...query.parameters]));
      return (rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']);
    });
  }

  /** What is wrong with a plan: a sort of the matches, a whole-table read, or a whole set built first. */
  function problems(lines: string[], shape: Shape): string[] {
    const bad: string[] = [];
    for (const line of lines) {
      if (dialect === 'sqlite') {
        if (/TEMP B-TREE/.test(line)) bad.push(`sorts the matches: ${line}`);
        // A led search's list of at most 1,000 candidate ids is the one set a list builds first (search-anchor.ts).
        const led = shape.search?.by === 'ids' && /LIST SUBQUERY/.test(line);
        if (/MATERIALIZE|LIST SUBQUERY|BLOOM/.test(line) && !led) bad.push(`builds a set first: ${line}`);
        const scan = /^SCAN (\S+)(.*)$/.exec(line);
        // An ordered walk of the whole index is right only when nothing narrows the list (LIMIT stops it).
        if (scan && !/VIRTUAL TABLE/.test(scan[2]) && !['candidates', 'matches'].includes(scan[1])
          && !(shape.driver === 'none' && scan[1] === 'r')) {
          bad.push(`reads a whole table: ${line}`);
        }
      } else {
        if (/\bSort\b/.test(line)) bad.push(`sorts the matches: ${line}`);
        if (/Seq Scan|Bitmap|Hash|Materialize/.test(line)) bad.push(`reads or builds a whole set: ${line}`);
      }
    }
    return bad;
  }

  it('a search more records hold than are counted walks the id order, never a GIN lookup of every match', async () => {
    if (dialect !== 'postgres') return;
    for (const resource of RESOURCES) {
      const filters: Filters = { search: 'silva' };
      const shape: Shape = {
        resource, filters, driver: 'search', orderby: 'id', order: 'desc', cursor: null, limit: 11, offset: 0,
        search: { by: 'walk', guessed: false },
      };
      const query = pageQuery(wp.core.store.sql, shape).compile(wp.core.db);
      // Index walks and table scans priced out: a condition the trigram index could answer would be answered by it.
      const lines = await wp.core.db.transaction().execute(async (trx) => {
        await sql`SET LOCAL enable_indexscan = off`.execute(trx);
        await sql`SET LOCAL enable_seqscan = off`.execute(trx);
        const { rows } = await trx.executeQuery(CompiledQuery.raw(`EXPLAIN ${query.sql}`, [...query.parameters]));
        return (rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']);
      });
      expect(lines.join('\n')).not.toMatch(/_search\b/);
    }
  });

  for (const resource of RESOURCES) {
    it(`${resource}: every page query walks one index in order`, async () => {
      const failures: string[] = [];
      const all = cases(resource);
      for (const c of all) {
        // SQLite never guesses: its search index lookup stops at the bound.
        if (dialect === 'sqlite' && c.name.includes('(guessed)')) continue;
        const lines = await plan(pageQuery(wp.core.store.sql, c.shape).compile(wp.core.db));
        const bad = problems(lines, c.shape);
        if (bad.length) failures.push(`${c.name}\n    ${bad.join('\n    ')}`);
      }
      expect(failures, failures.join('\n')).toEqual([]);
      expect(all.length).toBeGreaterThan(resource === 'bookings' ? 200 : 30);
    });

    it(`${resource}: every bounded total walks the driving index`, async () => {
      const failures: string[] = [];
      // A search more records hold than are counted (or guessed to) has no total: nothing counts it.
      for (const c of cases(resource)
        .filter((x) => x.name.endsWith(' desc first') && !/\((common|guessed)\)/.test(x.name))) {
        const { walk, rest } = countQueries(wp.core.store.sql, { ...c.shape, cursor: null }, 1001);
        const lines: string[] = [];
        // A search is first probed in its index (search-anchor.ts): up to 1,001 ids, read from the index alone.
        const probe = c.shape.driver === 'search' && !c.shape.search
          ? [searchCandidates(wp.core.store.sql, resource, c.shape.filters.search!, 1001)] : [];
        for (const q of rest ? [...probe, walk, rest] : [...probe, walk]) {
          lines.push(...await plan(q.compile(wp.core.db), c.shape.driver === 'search'));
        }
        // PostgreSQL's pg_trgm index answers a search as a bitmap of its matches (how GIN indexes work).
        const gin = dialect === 'postgres' && c.shape.driver === 'search';
        const bad = problems(lines, c.shape).filter((p) => !p.startsWith('sorts') && !(gin && /Bitmap/.test(p)));
        if (bad.length) failures.push(`${c.name}\n    ${bad.join('\n    ')}`);
      }
      expect(failures, failures.join('\n')).toEqual([]);
    });
  }
});
