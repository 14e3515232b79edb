// How a list query is answered in O(perpage) at any table size: one "driving" index that holds the narrowest
// filter given and then the sort field and id, walked in order from the cursor (or a bounded offset) for perpage + 1
// rows; the other filters are checked on those rows only. Which filters drive, in order of precedence:
//   customer_id, email, booking_id (one person's or booking's records) → trip_id → search → status → none.
// `search` lists are in id order (the search index is kept in id order); `modified_after` lists are in
// updated_at order (it is a range of that index), unless a search drives. Other orders answer 400.
import { sql, type RawBuilder } from 'kysely';
import type { ApiResource } from '../records/schemas.js';
import { invalidParameter } from '../errors.js';
import type { ListSql } from '../store/list-sql.js';
import { SEARCH_WALK } from './list-tuning.js';
import type { ListQuery } from './schemas.js';

export type Driver = 'none' | 'status' | 'customer_id' | 'email' | 'booking_id' | 'trip_id' | 'search';

/** The index each driver walks for each sort field (SQLite names it with INDEXED BY, see
 * store/list-sql.ts; null: the rowid order). */
const INDEXES: Record<ApiResource, Partial<Record<Driver, Record<string, string | null>>>> = {
  bookings: {
    none: { id: 'bookings_visible_id', created_at: 'bookings_visible_created', updated_at: 'bookings_visible_updated' },
    status: {
      id: 'bookings_visible_status', created_at: 'bookings_status_created', updated_at: 'bookings_status_updated',
    },
    customer_id: {
      id: 'bookings_customer', created_at: 'bookings_customer_created', updated_at: 'bookings_customer_updated',
    },
    email: {
      id: 'bookings_customer_email', created_at: 'bookings_email_created', updated_at: 'bookings_email_updated',
    },
    trip_id: {
      id: 'booking_trips_trip_id', created_at: 'booking_trips_trip_created', updated_at: 'booking_trips_trip_updated',
    },
  },
  trips: {
    none: { id: null, created_at: 'trips_created', updated_at: 'trips_updated', title: 'trips_title' },
    status: {
      id: 'trips_status', created_at: 'trips_status_created', updated_at: 'trips_status_updated',
      title: 'trips_status_title',
    },
  },
  customers: {
    none: { id: null, created_at: 'customers_created', updated_at: 'customers_updated', email: 'customers_email' },
    email: {
      id: 'customers_email', created_at: 'customers_email_created', updated_at: 'customers_email_updated',
      email: 'customers_email',
    },
  },
  payments: {
    none: { id: null, created_at: 'payments_created', updated_at: 'payments_updated' },
    status: { id: 'payments_status', created_at: 'payments_status_created', updated_at: 'payments_status_updated' },
    booking_id: {
      id: 'payments_booking', created_at: 'payments_booking_created', updated_at: 'payments_booking_updated',
    },
  },
};

const PRECEDENCE: Driver[] = ['customer_id', 'email', 'booking_id', 'trip_id', 'search', 'status'];

/**
 * How a list that a search drives reads its page (`Shape.search`): planned from a probe of the search index before
 * the page is read, and re-planned at most once after it (search-plan.ts).
 */
export type SearchPlan =
  /** No record holds the search, or a piece of it: an empty page with a total of 0, nothing read. */
  | { by: 'nothing' }
  /**
   * At most COUNTED_MATCHES records hold the search, or the rarest piece of a long one (`exact` false: each record is
   * checked for the whole search): they are read by id, and their number bounds the total.
   */
  | { by: 'ids'; ids: number[]; exact: boolean }
  /**
   * More records hold it: the list walks the id order and has no total (at most SEARCH_WALK records where the search
   * index hands over all its matches at once). `guessed`: so estimated or remembered, without a probe.
   */
  | { by: 'walk'; guessed: boolean }
  /**
   * The search index looks the whole search up: a long search whose every piece is common (its total counted up to
   * COUNTED_MATCHES), or one more than COUNTED_MATCHES hold whose bounded walk came up short (`counted` false).
   */
  | { by: 'index'; counted: boolean };

/** The filters a query gives, normalised (the values the SQL compares with). */
export interface Filters {
  status?: string;
  customer_id?: number;
  email?: string;
  booking_id?: number;
  trip_id?: number;
  search?: string;
  modifiedAfter?: string;
}

export function filtersOf(q: ListQuery): Filters {
  const f: Filters = {};
  if (q.status !== undefined) f.status = q.status;
  if (q.customer_id !== undefined) f.customer_id = Number(q.customer_id);
  if (q.email !== undefined) f.email = q.email.toLowerCase();
  if (q.booking_id !== undefined) f.booking_id = Number(q.booking_id);
  if (q.trip_id !== undefined) f.trip_id = Number(q.trip_id);
  if (q.search !== undefined) {
    if (q.search.trim().length < 3) throw invalidParameter('search', 'give at least 3 characters');
    f.search = q.search.trim().toLowerCase();
  }
  if (q.modified_after !== undefined) {
    const t = Date.parse(q.modified_after);
    if (Number.isNaN(t)) {
      throw invalidParameter('modified_after', 'expected an ISO 8601 time such as 2026-01-31T12:00:00Z');
    }
    f.modifiedAfter = new Date(t).toISOString();
  }
  return f;
}

export function driverOf(filters: Filters): Driver {
  return PRECEDENCE.find((d) => filters[d as keyof Filters] !== undefined) ?? 'none';
}

/** The sort a query gets: the one asked for, or the one its filters imply; 400 for one no index can serve. */
export function sortOf(q: ListQuery, filters: Filters, driver: Driver): string {
  if (driver === 'search') {
    if (q.orderby !== undefined && q.orderby !== 'id') {
      throw invalidParameter('orderby', 'search results are listed by id; leave orderby out or use orderby=id');
    }
    return 'id';
  }
  if (filters.modifiedAfter !== undefined) {
    if (q.orderby !== undefined && q.orderby !== 'updated_at') {
      throw invalidParameter('orderby', 'modified_after lists are ordered by updated_at; '
        + 'use orderby=updated_at (order=asc to sync oldest first)');
    }
    return 'updated_at';
  }
  return q.orderby ?? 'id';
}

export interface Shape {
  resource: ApiResource;
  filters: Filters;
  driver: Driver;
  orderby: string;
  order: 'asc' | 'desc';
  /** Keyset position to start after: the sort value and id of the last row seen. */
  cursor: { value: string | number; id: number } | null;
  limit: number;
  offset: number;
  /** How a search that drives is read (undefined: by the search index, as `{ by: 'index' }`). */
  search?: SearchPlan;
}

/** Whether the page walks at most SEARCH_WALK records in id order (PostgreSQL, a search many records hold). */
export const walksBounded = (dialect: ListSql, s: Shape): boolean => s.driver === 'search' && !dialect.orderedSearch
  && s.search?.by === 'walk';

/** The page's query: id, data and the sort value of perpage + 1 rows, walking the driver's index. */
export function pageQuery(dialect: ListSql, s: Shape): RawBuilder<{ id: number; data: string; sort_key: unknown }> {
  const dir = sql.raw(s.order === 'asc' ? 'ASC' : 'DESC');
  const op = sql.raw(s.order === 'asc' ? '>' : '<');
  if (walksBounded(dialect, s)) {
    // The next SEARCH_WALK records in id order that pass the other filters; then the search among them.
    const others: Filters = { ...s.filters, search: undefined };
    const inner: Shape = { ...s, filters: others, driver: driverOf(others), search: undefined };
    const conds = conditions(dialect, inner);
    if (s.cursor) conds.push(sql`r.id ${op} ${s.cursor.id}`);
    const where = conds.length ? sql`WHERE ${sql.join(conds, sql` AND `)}` : sql``;
    const offset = s.offset > 0 ? sql` OFFSET ${s.offset}` : sql``;
    return sql`SELECT r.id AS id, r.data AS data, r.id AS sort_key
      FROM (SELECT * FROM ${source(dialect, inner).from} ${where} ORDER BY r.id ${dir} LIMIT ${SEARCH_WALK}) AS r
      WHERE ${dialect.searchCheck(s.resource, s.filters.search!)} ORDER BY r.id ${dir} LIMIT ${s.limit}${offset}`;
  }
  const { from, keyTable, keyId } = source(dialect, s);
  const conds = conditions(dialect, s);
  const sortCol = s.orderby === 'id' ? keyId : sql.ref(`${keyTable}.${s.orderby}`);
  if (s.cursor) {
    conds.push(s.orderby === 'id'
      ? sql`${keyId} ${op} ${s.cursor.id}`
      : sql`(${sortCol}, ${keyId}) ${op} (${s.cursor.value}, ${s.cursor.id})`);
  }
  const where = conds.length ? sql`WHERE ${sql.join(conds, sql` AND `)}` : sql``;
  const order = s.orderby === 'id' ? sql`${keyId} ${dir}` : sql`${sortCol} ${dir}, ${keyId} ${dir}`;
  const offset = s.offset > 0 ? sql` OFFSET ${s.offset}` : sql``;
  return sql`SELECT r.id AS id, r.data AS data, ${sortCol} AS sort_key FROM ${from} ${where}
    ORDER BY ${order} LIMIT ${s.limit}${offset}`;
}

/**
 * How many records (up to `limit`) a search index lookup of `needle` (the search or a piece of it) finds, and their
 * ids: one row, so a lookup of many matches hands over one value instead of `limit` rows.
 */
export function searchCandidates(dialect: ListSql, resource: ApiResource, needle: string, limit: number)
  : RawBuilder<{ n: number; ids: string | number[] }> {
  const s: Shape = {
    resource, filters: { search: needle }, driver: 'search', orderby: 'id', order: 'desc', cursor: null, limit,
    offset: 0,
  };
  const { keyFrom, keyId } = source(dialect, s);
  const { index } = splitConditions(dialect, s);
  const ids = dialect.jsonArray(sql.ref('candidates.id'));
  return sql<{ n: number; ids: string | number[] }>`SELECT count(*) AS n, ${ids} AS ids
    FROM (SELECT ${keyId} AS id FROM ${keyFrom} WHERE ${sql.join(index, sql` AND `)} LIMIT ${limit}) AS candidates`;
}

/**
 * The bounded total, in two steps. `walk`: how many entries of the driving index pass its own conditions, counted up
 * to `limit` (index-only for most drivers); at `limit` the total is unknown (counting it would cost O(matches)).
 * `rest` (null when the index answers every filter): how many of those at most `limit` entries pass the others.
 */
export function countQueries(dialect: ListSql, s: Shape, limit: number)
  : { walk: RawBuilder<{ n: number }>; rest: RawBuilder<{ n: number }> | null } {
  const { from, keyFrom } = source(dialect, s);
  const { index, rest } = splitConditions(dialect, s);
  const where = index.length ? sql`WHERE ${sql.join(index, sql` AND `)}` : sql``;
  // The walk reads the driving index alone (its conditions name only it), not the records it points to.
  const walk = sql<{ n: number }>`SELECT count(*) AS n
    FROM (SELECT 1 FROM ${keyFrom} ${where} LIMIT ${limit}) AS candidates`;
  if (rest.length === 0) return { walk, rest: null };
  const all = sql`WHERE ${sql.join([...index, ...rest], sql` AND `)}`;
  const count = sql<{ n: number }>`SELECT count(*) AS n FROM (SELECT 1 FROM ${from} ${all} LIMIT ${limit}) AS matches`;
  return { walk, rest: count };
}

/** FROM clause: the record table as `r`, or the driving index's table joined to it. */
function source(dialect: ListSql, s: Shape) {
  const table = sql.table(s.resource);
  const index = INDEXES[s.resource][s.driver === 'search' ? 'none' : s.driver]?.[s.orderby];
  const hint = dialect.indexHint;
  if (s.driver === 'trip_id') {
    return {
      from: sql`booking_trips AS k${hint(index)} JOIN ${table} AS r ON r.id = k.booking_id`,
      keyFrom: sql`booking_trips AS k${hint(index)}`,
      keyTable: 'k', keyId: sql.ref('k.booking_id'),
    };
  }
  if (s.search?.by === 'ids' && s.driver === 'search') {
    const byId = sql`${table} AS r${dialect.idHint}`;
    return { from: byId, keyFrom: byId, keyTable: 'r', keyId: sql.ref('r.id') };
  }
  const searched = s.driver === 'search' ? dialect.searchSource(s.resource) : null;
  if (searched) return searched;
  const from = sql`${table} AS r${hint(index)}`;
  return { from, keyFrom: from, keyTable: 'r', keyId: sql.ref('r.id') };
}

/** All the conditions of a list (the page query checks them all). */
function conditions(dialect: ListSql, s: Shape): RawBuilder<unknown>[] {
  const { index, rest } = splitConditions(dialect, s);
  return [...index, ...rest];
}

/** The conditions the driving index answers (`index`), and those checked on each row it yields (`rest`). */
function splitConditions(dialect: ListSql, s: Shape) {
  const f = s.filters;
  const index: RawBuilder<unknown>[] = [];
  const rest: RawBuilder<unknown>[] = [];
  const by = (driver: Driver) => (s.driver === driver ? index : rest);
  const key = s.driver === 'trip_id' ? 'k' : 'r';
  if (s.driver === 'trip_id') index.push(sql`k.trip_id = ${f.trip_id}`, sql`k.visible = 1`);
  else if (s.resource === 'bookings') (s.driver === 'search' ? rest : index).push(sql`r.visible = 1`);
  if (f.customer_id !== undefined) by('customer_id').push(sql`r.customer_id = ${f.customer_id}`);
  if (f.email !== undefined) {
    by('email').push(sql`${sql.ref(s.resource === 'bookings' ? 'r.customer_email' : 'r.email')} = ${f.email}`);
  }
  if (f.booking_id !== undefined) by('booking_id').push(sql`r.booking_id = ${f.booking_id}`);
  if (f.trip_id !== undefined && s.driver !== 'trip_id') {
    rest.push(sql`EXISTS (SELECT 1 FROM booking_trips t WHERE t.booking_id = r.id AND t.trip_id = ${f.trip_id})`);
  }
  if (f.status !== undefined) by('status').push(sql`r.status = ${f.status}`);
  if (f.modifiedAfter !== undefined) {
    // A range of the driving index when it ends in updated_at (the sort modified_after implies).
    const ranged = s.orderby === 'updated_at' && s.driver !== 'search';
    (ranged ? index : rest).push(sql`${sql.ref(`${key}.updated_at`)} > ${f.modifiedAfter}`);
  }
  const lead = s.driver === 'search' ? s.search : undefined;
  if (f.search !== undefined && lead?.by === 'ids') {
    // The records holding a rare piece of the search (or the whole search), read by id.
    index.push(dialect.idIn(lead.ids));
    if (!lead.exact) rest.push(dialect.searchCheck(s.resource, f.search));
  } else if (f.search !== undefined) {
    by('search').push(dialect.searchMatch(s.resource, f.search, s.driver === 'search'));
  }
  return { index, rest };
}
