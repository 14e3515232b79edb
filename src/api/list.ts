// Data access for the REST API: filtered, sorted, paginated lists and single records, in the public shape.
// How each list walks one index in O(perpage): list-plan.ts; how a search is read: search-plan.ts. Totals come from
// maintained counters or a bounded count.
import type { CompiledQuery } from 'kysely';
import type { Core } from '../core.js';
import type { UntypedDb } from '../store/tables.js';
import { invalidParameter } from '../errors.js';
import type { StoredRecords } from '../records/normalize.js';
import { present, type ReadRows } from '../records/present.js';
import type { ApiResource, PublicRecords } from '../records/schemas.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { ListQuery } from './schemas.js';
import { readRows } from '../store/read.js';
import { countQueries, driverOf, filtersOf, pageQuery, sortOf, type Filters, type Shape } from './list-plan.js';
import { COUNTED_MATCHES, MAX_OFFSET } from './list-tuning.js';
import { planSearch, replan } from './search-plan.js';

export interface ListPage<R extends ApiResource> {
  items: PublicRecords[R][];
  /** Exact number of matches, or null when knowing it would mean counting more than COUNTED_MATCHES rows. */
  total: number | null;
  perpage: number;
  /** Set in page mode (`page` given). */
  page: number | null;
  /** Whether a row follows this page (page mode's `next` when the total is unknown). */
  hasMore: boolean;
  /** Cursor for the next page in cursor mode, when there is one. */
  nextCursor: string | null;
}

/** The API's reads on this Core: prepared statements on SQLite (src/store/read.ts). */
const readerOf = (core: Core): ReadRows => <T>(query: CompiledQuery) => readRows<T>(core, query);

/** The maintained total for no filter or the status filter alone (record_counts), else undefined. */
function countKey(resource: ApiResource, f: Filters): string | undefined {
  const given = Object.keys(f);
  if (given.length === 0) return resource;
  if (given.length === 1 && f.status !== undefined) return `${resource}?status=${f.status}`;
  return undefined;
}

/** `walked`: the driving index's bounded count when the caller has it (a search read by its ids, search-plan.ts). */
async function totalOf(core: Core, shape: Shape, walked?: number): Promise<number | null> {
  const key = countKey(shape.resource, shape.filters);
  if (key !== undefined) {
    const query = core.db.selectFrom('record_counts').select('total').where('resource', '=', key).compile();
    const [row] = await readRows<{ total: number }>(core, query);
    return Number(row?.total ?? 0);
  }
  const { walk, rest } = countQueries(core.store.sql, shape, COUNTED_MATCHES + 1);
  const count = async (q: typeof walk) => Number((await readRows<{ n: number }>(core, q.compile(core.db)))[0]?.n ?? 0);
  const candidates = walked ?? await count(walk);
  if (candidates > COUNTED_MATCHES) return null;
  return rest ? count(rest) : candidates;
}

type PageRow = { id: number; data: string; sort_key: unknown };

/** The page's rows, and its total unless more than COUNTED_MATCHES hold the search (found or guessed so). */
async function readPage(core: Core, shape: Shape): Promise<{ rows: PageRow[]; total: number | null }> {
  const plan = shape.search;
  const counted = plan === undefined || plan.by === 'ids' || (plan.by === 'index' && plan.counted);
  const [rows, total] = await Promise.all([
    readRows<PageRow>(core, pageQuery(core.store.sql, shape).compile(core.db)),
    counted ? totalOf(core, shape, plan?.by === 'ids' ? plan.ids.length : undefined) : null,
  ]);
  return { rows, total };
}

export async function listRecords<R extends ApiResource>(core: Core, resource: R, q: ListQuery): Promise<ListPage<R>> {
  const perpage = q.perpage ?? 10;
  if (q.page !== undefined && q.after !== undefined) {
    throw invalidParameter('after', 'use either page or after, not both');
  }
  const filters = filtersOf(q);
  const driver = driverOf(filters);
  const orderby = sortOf(q, filters, driver);
  const order = q.order ?? 'desc';
  const offset = q.page !== undefined ? (q.page - 1) * perpage : 0;
  if (offset > MAX_OFFSET) {
    throw invalidParameter('page', `page ${q.page} starts ${offset.toLocaleString('en')} records deep; page numbers `
      + `reach ${MAX_OFFSET.toLocaleString('en')} records. Follow the Link rel="next" URL (it pages with after, `
      + 'fast at any depth) or narrow the list with filters');
  }
  const cursor = q.after !== undefined ? decodeCursor(q.after, orderby, order) : null;
  let shape: Shape = { resource, filters, driver, orderby, order, cursor, limit: perpage + 1, offset };
  // No record holds the search, or a piece of it.
  const none: ListPage<R> = { items: [], total: 0, perpage, page: q.page ?? null, hasMore: false, nextCursor: null };
  // A guess is checked by its walk's first page: past page 1, page mode asks the index.
  if (driver === 'search') shape = { ...shape, search: await planSearch(core, shape, offset === 0) };
  if (shape.search?.by === 'nothing') return none;
  let { rows, total } = await readPage(core, shape);
  const next = rows.length < shape.limit ? await replan(core, shape) : null;
  if (next?.by === 'nothing') return none;
  if (next) ({ rows, total } = await readPage(core, { ...shape, search: next }));
  const pageRows = rows.slice(0, perpage);
  const stored = pageRows.map((r) => JSON.parse(r.data) as StoredRecords[R]);
  const items = await present(core.db, resource, stored, readerOf(core));
  const last = pageRows[pageRows.length - 1];
  const hasMore = rows.length > perpage;
  const nextCursor = q.page === undefined && hasMore && last
    ? encodeCursor({
      orderby, order, value: orderby === 'id' ? Number(last.id) : String(last.sort_key), id: Number(last.id),
    })
    : null;
  return { items, total, perpage, page: q.page ?? null, hasMore, nextCursor };
}

/** The record tables share id/data; a query taking the table name as a value uses this view. */
const anyDb = (core: Core) => core.db as unknown as UntypedDb;

/** One record in the public shape, or null (legacy bookings are absent, as if they did not exist). */
export async function readRecord<R extends ApiResource>(
  core: Core, resource: R, id: number,
): Promise<PublicRecords[R] | null> {
  let qb = anyDb(core).selectFrom(resource as string).select('data').where('id', '=', id);
  if (resource === 'bookings') qb = qb.where('visible', '=', 1);
  const [row] = await readRows<{ data: string }>(core, qb.compile());
  if (!row) return null;
  const [one] = await present(core.db, resource, [JSON.parse(row.data) as StoredRecords[R]], readerOf(core));
  return one;
}
