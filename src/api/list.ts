// Data access for the REST API: filtered, sorted, paginated lists and single records, in the public shape.
// Every list is "filter, order by (column, id), limit": the indexes in 0001_records end in id to serve it.
import type { CompiledQuery, Kysely, SelectQueryBuilder } from 'kysely';
import type { Core } from '../core.js';
import { invalidParameter } from '../errors.js';
import type { StoredRecords } from '../records/normalize.js';
import { present, type ReadRows } from '../records/present.js';
import type { ApiResource, PublicRecords } from '../records/schemas.js';
import { searchCondition } from '../store/dialect.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { ListQuery } from './schemas.js';
import { readRows } from '../store/read.js';

export interface ListPage<R extends ApiResource> {
  items: PublicRecords[R][];
  total: number;
  perpage: number;
  /** Set in page mode (`page` given). */
  page: number | null;
  /** Cursor for the next page in cursor mode, when there is one. */
  nextCursor: string | null;
}

type AnyQuery = SelectQueryBuilder<any, any, any>;
/** The record tables share id/data/created_at/updated_at; queries taking the table name as a value use this view. */
const anyDb = (core: Core) => core.db as unknown as Kysely<any>;

/** Whether the query narrows the set (then the total is a COUNT; otherwise it is the maintained record count). */
function isFiltered(q: ListQuery): boolean {
  return q.search !== undefined || q.modified_after !== undefined || q.status !== undefined || q.customer_id !== undefined
    || q.trip_id !== undefined || q.booking_id !== undefined || q.email !== undefined;
}

function applyFilters(core: Core, resource: ApiResource, qb: AnyQuery, q: ListQuery): AnyQuery {
  if (resource === 'bookings') qb = qb.where('visible', '=', 1);
  if (q.status !== undefined) qb = qb.where('status', '=', q.status);
  if (q.customer_id !== undefined) qb = qb.where('customer_id', '=', Number(q.customer_id));
  if (q.booking_id !== undefined) qb = qb.where('booking_id', '=', Number(q.booking_id));
  if (q.trip_id !== undefined) qb = qb.where('id', 'in', anyDb(core).selectFrom('booking_trips').select('booking_id').where('trip_id', '=', Number(q.trip_id)));
  if (q.email !== undefined) qb = qb.where(resource === 'bookings' ? 'customer_email' : 'email', '=', q.email.toLowerCase());
  if (q.modified_after !== undefined) {
    const t = Date.parse(q.modified_after);
    if (Number.isNaN(t)) throw invalidParameter('modified_after', 'expected an ISO 8601 time such as 2026-01-31T12:00:00Z');
    qb = qb.where('updated_at', '>', new Date(t).toISOString());
  }
  if (q.search !== undefined) {
    if (q.search.trim().length < 3) throw invalidParameter('search', 'give at least 3 characters');
    qb = qb.where(searchCondition(core.store.dialect, resource, q.search.trim()));
  }
  return qb;
}

/** The API's reads on this Core: prepared statements on SQLite (src/api/read.ts). */
const readerOf = (core: Core): ReadRows => <T>(query: CompiledQuery) => readRows<T>(core, query);

/** The unfiltered total's query never changes: compiled once per Core and resource. */
const countQueries = new WeakMap<Core, Map<ApiResource, CompiledQuery>>();
function countQuery(core: Core, resource: ApiResource): CompiledQuery {
  let byResource = countQueries.get(core);
  if (!byResource) countQueries.set(core, (byResource = new Map()));
  let query = byResource.get(resource);
  if (!query) byResource.set(resource, (query = core.db.selectFrom('record_counts').select('total').where('resource', '=', resource).compile()));
  return query;
}

async function totalOf(core: Core, resource: ApiResource, q: ListQuery): Promise<number> {
  if (!isFiltered(q)) {
    const [row] = await readRows<{ total: number }>(core, countQuery(core, resource));
    return Number(row?.total ?? 0);
  }
  const [row] = await readRows<{ n: number }>(core, applyFilters(core, resource, anyDb(core).selectFrom(resource as string), q).select((eb) => eb.fn.countAll().as('n')).compile());
  return Number(row?.n ?? 0);
}

export async function listRecords<R extends ApiResource>(core: Core, resource: R, q: ListQuery): Promise<ListPage<R>> {
  const perpage = q.perpage ?? 10;
  const orderby = q.orderby ?? 'id';
  const order = q.order ?? 'desc';
  if (q.page !== undefined && q.after !== undefined) throw invalidParameter('after', 'use either page or after, not both');
  const cursor = q.after !== undefined ? decodeCursor(q.after, orderby, order) : null;

  let qb = applyFilters(core, resource, anyDb(core).selectFrom(resource as string), q).select(['id', 'data']);
  if (orderby !== 'id') qb = qb.select(`${orderby} as sort_key`);
  if (cursor) {
    const op = order === 'asc' ? '>' : '<';
    qb = orderby === 'id'
      ? qb.where('id', op, cursor.id)
      : qb.where((eb) => eb(eb.refTuple(orderby, 'id'), op, eb.tuple(cursor.value, cursor.id)));
  }
  if (orderby !== 'id') qb = qb.orderBy(orderby, order);
  qb = qb.orderBy('id', order).limit(perpage + 1);
  if (q.page !== undefined) qb = qb.offset((q.page - 1) * perpage);

  const [rows, total] = await Promise.all([readRows<{ id: number; data: string; sort_key?: string }>(core, qb.compile()), totalOf(core, resource, q)]);
  const pageRows = rows.slice(0, perpage) as Array<{ id: number; data: string; sort_key?: string }>;
  const items = await present(core.db, resource, pageRows.map((r) => JSON.parse(r.data) as StoredRecords[R]), readerOf(core));
  const last = pageRows[pageRows.length - 1];
  const nextCursor = q.page === undefined && rows.length > perpage && last
    ? encodeCursor({ orderby, order, value: orderby === 'id' ? Number(last.id) : (last.sort_key as string), id: Number(last.id) })
    : null;
  return { items, total, perpage, page: q.page ?? null, nextCursor };
}

/** One record in the public shape, or null (legacy bookings are absent, as if they did not exist). */
export async function readRecord<R extends ApiResource>(core: Core, resource: R, id: number): Promise<PublicRecords[R] | null> {
  let qb = anyDb(core).selectFrom(resource as string).select('data').where('id', '=', id);
  if (resource === 'bookings') qb = qb.where('visible', '=', 1);
  const [row] = await readRows<{ data: string }>(core, qb.compile());
  if (!row) return null;
  const [one] = await present(core.db, resource, [JSON.parse(row.data) as StoredRecords[R]], readerOf(core));
  return one;
}
