// On PostgreSQL a search many records hold walks at most SEARCH_WALK records in id order for its page (list-tuning.ts),
// since the GIN lookup reads every match; when the planner estimates far more matches than are counted, the list even
// skips that lookup (search-anchor.ts 'guessed'). When the walk finds less than its page (a stale estimate, matches
// further on, the end of the list) the list asks the index: the answer is what the search holds either way.
// 10,200 customers named Guessman, analysed; then 10,200 others after them; then all but three removed, with no new
// ANALYZE, so the planner still expects thousands. On both databases a search a probe found common is remembered for a
// minute and walked without a probe (list-tuning.ts KNOWN_COMMON_MS, search-memo.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { DIALECTS } from '../helpers/db.js';
import { apiFixture, customer, fakeClock, parseLinks, type ApiFixture } from './setup.js';
import { deleteRecord, putMany } from '../../src/host/write.js';
import { validateInput } from '../../src/records/validate.js';
import { COUNTED_MATCHES } from '../../src/api/list-tuning.js';
import { searchLead } from '../../src/api/search-anchor.js';
import type { Database } from '../../src/store/tables.js';

const COUNT = 10_200;
const ids = (body: Array<{ id: number }>) => body.map((r) => r.id);

describe.runIf(DIALECTS.includes('postgres'))('a search guessed common on postgres', () => {
  let f: ApiFixture;
  beforeAll(async () => {
    f = await apiFixture('postgres');
    const items = Array.from({ length: COUNT }, (_, i) => ({
      resource: 'customers' as const, id: i + 1,
      input: validateInput('customers', customer({ email: `g${i + 1}@example.com`, last_name: 'Guessman' })),
    }));
    for (let i = 0; i < items.length; i += 2000) await putMany(f.wp.core, items.slice(i, i + 2000), { events: false });
    await sql`ANALYZE customers`.execute(f.wp.core.db);
  }, 120_000);
  afterAll(async () => f?.wp.close());

  it('walks the id order for its page, with no total, and pages on exactly', async () => {
    expect(await searchLead(f.wp.core, 'customers', 'guessman', COUNTED_MATCHES)).toBe('guessed');
    const first = await f.get('/customers?search=guessman&perpage=3');
    expect(ids(first.json())).toEqual([COUNT, COUNT - 1, COUNT - 2]);
    expect(first.headers['x-total-count']).toBeUndefined();
    const next = parseLinks(first.headers.link).next;
    expect(ids((await f.get(next.slice(next.indexOf('/customers')))).json()))
      .toEqual([COUNT - 3, COUNT - 4, COUNT - 5]);
  });

  it('asks the index when the matches lie beyond the walk', async () => {
    const others = Array.from({ length: COUNT }, (_, i) => ({
      resource: 'customers' as const, id: COUNT + i + 1,
      input: validateInput('customers', customer({ email: `o${i + 1}@example.com`, last_name: 'Other' })),
    }));
    for (let i = 0; i < others.length; i += 2000) {
      await putMany(f.wp.core, others.slice(i, i + 2000), { events: false });
    }
    expect(await searchLead(f.wp.core, 'customers', 'guessman', COUNTED_MATCHES)).toBe('guessed');
    const res = await f.get('/customers?search=guessman&perpage=3');
    expect(ids(res.json())).toEqual([COUNT, COUNT - 1, COUNT - 2]);
    expect(res.headers['x-total-count']).toBeUndefined();
    const last = await f.get('/customers?search=guessman&perpage=3&page=2');
    expect(ids(last.json())).toEqual([COUNT - 3, COUNT - 4, COUNT - 5]);
  }, 60_000);

  it('asks the index when the walk finds less than a page: a stale estimate answers exactly', async () => {
    await sql`DELETE FROM customers WHERE id > 3`.execute(f.wp.core.db);
    expect(await searchLead(f.wp.core, 'customers', 'guessman', COUNTED_MATCHES)).toBe('guessed');
    const res = await f.get('/customers?search=guessman');
    expect(ids(res.json())).toEqual([3, 2, 1]);
    expect(res.headers['x-total-count']).toBe('3');
    expect((await f.get('/customers?search=guessmanx')).json()).toEqual([]);
  });
});

describe.each(DIALECTS)('a search its probe found common (%s)', (dialect) => {
  let f: ApiFixture;
  const clock = fakeClock();
  beforeAll(async () => {
    f = await apiFixture(dialect, { clock });
    const known = Array.from({ length: 1_100 }, (_, i) => ({
      resource: 'customers' as const, id: 100 + i,
      input: validateInput('customers', customer({ email: `k${i}@example.com`, last_name: 'Knownman' })),
    }));
    await putMany(f.wp.core, known, { events: false });
  }, 60_000);
  afterAll(async () => f?.wp.close());

  it('is remembered for a minute and walked without a probe, until a walk comes up short', async () => {
    // 1,100 Knownmen: estimated rare on PostgreSQL (the table holds fewer than 10,000), so probed, and found common.
    const core = f.wp.core as { db: Kysely<Database> };
    const plain = core.db;
    const statements: string[] = [];
    const executor = plain.getExecutor();
    core.db = plain.withPlugin({
      transformQuery: ({ node, queryId }) => {
        statements.push(executor.compileQuery(node, queryId).sql);
        return node;
      },
      transformResult: async ({ result }) => result,
    });
    const asked = async (url: string) => {
      statements.length = 0;
      const res = await f.get(url);
      const ran = (pattern: RegExp) => statements.some((q) => pattern.test(q));
      return { res, probed: ran(/json_agg|json_group_array/), estimated: ran(/EXPLAIN/) };
    };
    const estimates = dialect === 'postgres';
    try {
      const first = await asked('/customers?search=knownman&perpage=3');
      expect(first).toMatchObject({ probed: true, estimated: estimates });
      expect(ids(first.res.json())).toEqual([1199, 1198, 1197]);
      expect(first.res.headers['x-total-count']).toBeUndefined();
      // Another URL (the answer cache does not hold it): neither probe nor estimate, the same walk.
      const again = await asked('/customers?search=knownman&perpage=2');
      expect(again).toMatchObject({ probed: false, estimated: false });
      expect(ids(again.res.json())).toEqual([1199, 1198]);
      // A minute later it is probed again, and still common.
      clock.advance(60_001);
      expect(await asked('/customers?search=knownman&perpage=6')).toMatchObject({ probed: true, estimated: estimates });
      expect(await asked('/customers?search=knownman&perpage=7')).toMatchObject({ probed: false });

      // Now two hold it: the remembered search's walk comes up short, and the probe answers exactly and forgets it.
      for (let id = 102; id < 1200; id++) await deleteRecord(f.wp.core, 'customers', id);
      const short = await asked('/customers?search=knownman&perpage=4');
      expect(short).toMatchObject({ probed: true, estimated: false });
      expect(ids(short.res.json())).toEqual([101, 100]);
      expect(short.res.headers['x-total-count']).toBe('2');
      expect(await asked('/customers?search=knownman&perpage=5')).toMatchObject({ probed: true, estimated: estimates });
    } finally {
      core.db = plain;
    }
  }, 60_000);
});
