// Maps stored records to table rows (indexed columns + the JSON document) and back, and reads/writes one record.
// Repositories are plain functions taking `db` or a transaction first; the caller owns the unit of work.
import type { CompiledQuery, Kysely } from 'kysely';
import { indexSearchText, searchTextInIndexOnly, searchText, type Searchable } from '../store/dialect.js';
import type { Database, UntypedDb } from '../store/tables.js';
import { isLegacyEngine, type StoredRecords } from './normalize.js';
import type { Resource } from './schemas.js';

type Db = Kysely<Database>;
/** Record tables share the columns id and data; queries that take the table name as a value use this view. */
const anyTable = (db: Db) => db as unknown as UntypedDb;

export function rowFor<R extends Resource>(resource: R, rec: StoredRecords[R]): Record<string, unknown> {
  const data = JSON.stringify(rec);
  switch (resource) {
    case 'trips': {
      const t = rec as StoredRecords['trips'];
      return {
        id: t.id, data, status: t.status, title: t.title,
        search_text: searchTextOf('trips', t),
        created_at: t.created_at, updated_at: t.updated_at,
      };
    }
    case 'customers': {
      const c = rec as StoredRecords['customers'];
      return {
        id: c.id, data, email: c.email.toLowerCase(),
        search_text: searchTextOf('customers', c),
        created_at: c.created_at, updated_at: c.updated_at,
      };
    }
    case 'bookings': {
      const b = rec as StoredRecords['bookings'];
      return {
        id: b.id, data, status: b.status,
        customer_id: b.customer?.id ?? null,
        customer_email: b.customer?.email.toLowerCase() ?? null,
        visible: isLegacyEngine(b.engine_version) ? 0 : 1,
        booked_at: b.booked_at,
        search_text: searchTextOf('bookings', b),
        created_at: b.created_at, updated_at: b.updated_at,
      };
    }
    case 'payments': {
      const p = rec as StoredRecords['payments'];
      return {
        id: p.id, data, booking_id: p.booking_id, status: p.status,
        search_text: searchTextOf('payments', p),
        created_at: p.created_at, updated_at: p.updated_at,
      };
    }
    case 'enquiries': {
      const e = rec as StoredRecords['enquiries'];
      return { id: e.id, data, email: e.email.toLowerCase(), created_at: e.created_at };
    }
    case 'reviews': {
      const r = rec as StoredRecords['reviews'];
      return {
        id: r.id, data, trip_id: r.trip_id, author: r.author_name.toLowerCase(),
        author_email_sha256: r.author_email_sha256 ?? null, created_at: r.created_at,
      };
    }
  }
  throw new Error(`unknown resource ${resource as string}`);
}

/** The text a record is found by (`search`), for the four searchable resources. */
export function searchTextOf<R extends Searchable>(resource: R, rec: StoredRecords[R]): string {
  switch (resource) {
    case 'trips': {
      const t = rec as StoredRecords['trips'];
      return searchText([t.id, t.title, t.code, t.slug, ...t.destinations, ...t.activities]);
    }
    case 'customers': {
      const c = rec as StoredRecords['customers'];
      return searchText([c.id, c.email, c.first_name, c.last_name, c.phone, c.address.city, c.address.country]);
    }
    case 'bookings': {
      const b = rec as StoredRecords['bookings'];
      return searchText([b.id, b.status, b.customer?.email, b.customer?.first_name, b.customer?.last_name,
        b.customer?.phone, ...b.trips.map((t) => t.title)]);
    }
    default: {
      const p = rec as StoredRecords['payments'];
      return searchText([p.id, p.booking_id, p.status, p.gateway, p.transaction_id]);
    }
  }
}

/**
 * The row as the table keeps it. SQLite's search index (FTS5, contentless) holds the search text itself, so the
 * column stays empty there instead of storing it twice; PostgreSQL's pg_trgm index is built on the column.
 */
export function storedRow(db: Db, row: Record<string, unknown>): Record<string, unknown> {
  return 'search_text' in row && searchTextInIndexOnly(db) ? { ...row, search_text: '' } : row;
}

/**
 * The maintained totals a row counts towards (record_counts): the resource's public total and, where the API filters
 * by status, the total of its status ("bookings?status=booked"). Legacy bookings count towards none.
 */
function countKeys(resource: Resource, row: Record<string, unknown> | null): string[] {
  if (row === null || (resource === 'bookings' && Number(row.visible) !== 1)) return [];
  return 'status' in row ? [resource, `${resource}?status=${String(row.status)}`] : [resource];
}

export async function readStored<R extends Resource>(
  db: Db,
  resource: R,
  id: number,
): Promise<StoredRecords[R] | null> {
  const row = await anyTable(db).selectFrom(resource as string).select('data').where('id', '=', id).executeTakeFirst();
  return row ? (JSON.parse(row.data) as StoredRecords[R]) : null;
}

async function bumpCounts(db: Db, resource: Resource, row: Record<string, unknown> | null,
  prevRow: Record<string, unknown> | null): Promise<void> {
  const query = bumpCountsQuery(db, addCountDeltas(new Map(), resource, row, prevRow));
  if (query) await db.executeQuery(query);
}

/** Adds to `deltas` what a row replacing `prevRow` (either null: none) changes in the maintained totals. */
export function addCountDeltas(deltas: Map<string, number>, resource: Resource, row: Record<string, unknown> | null,
  prevRow: Record<string, unknown> | null): Map<string, number> {
  for (const key of countKeys(resource, row)) deltas.set(key, (deltas.get(key) ?? 0) + 1);
  for (const key of countKeys(resource, prevRow)) deltas.set(key, (deltas.get(key) ?? 0) - 1);
  return deltas;
}

/**
 * Adds each non-zero delta to its maintained total in one upsert (UPDATE-else-INSERT lets two first writers both
 * INSERT), or null when nothing changes. Keys in sorted order, so two writers bumping the same totals lock their
 * rows in the same order.
 */
export function bumpCountsQuery(db: Db, deltas: Map<string, number>): CompiledQuery | null {
  const rows = [...deltas].filter(([, delta]) => delta !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([resource, total]) => ({ resource, total }));
  if (rows.length === 0) return null;
  return db.insertInto('record_counts').values(rows)
    .onConflict((oc) => oc.column('resource')
      .doUpdateSet((eb) => ({ total: eb('record_counts.total', '+', eb.ref('excluded.total')) })))
    .compile();
}

/** Inserts or replaces one record, keeping the search index, the trip links and the public count in step. */
export async function writeStored<R extends Resource>(
  db: Db,
  resource: R,
  rec: StoredRecords[R],
  previous: StoredRecords[R] | null,
): Promise<void> {
  const row = rowFor(resource, rec);
  const prevRow = previous ? rowFor(resource, previous) : null;
  if (previous) {
    const { id: _id, ...rest } = storedRow(db, row);
    await anyTable(db).updateTable(resource as string).set(rest).where('id', '=', rec.id).execute();
  } else {
    await anyTable(db).insertInto(resource as string).values(storedRow(db, row)).execute();
  }
  if ('search_text' in row && row.search_text !== prevRow?.search_text) {
    await indexSearchText(db, resource as Searchable, rec.id, row.search_text as string);
  }
  if (resource === 'bookings') {
    const prevBooking = previous as StoredRecords['bookings'] | null;
    const before = prevRow && prevBooking ? tripLinks(prevRow, prevBooking) : [];
    await linkTrips(db, tripLinks(row, rec as StoredRecords['bookings']), before);
  }
  await bumpCounts(db, resource, row, prevRow);
}

export async function deleteStored<R extends Resource>(db: Db, resource: R, previous: StoredRecords[R]): Promise<void> {
  await anyTable(db).deleteFrom(resource as string).where('id', '=', previous.id).execute();
  const prevRow = rowFor(resource, previous);
  if ('search_text' in prevRow) await indexSearchText(db, resource as Searchable, previous.id, null);
  if (resource === 'bookings') await db.deleteFrom('booking_trips').where('booking_id', '=', previous.id).execute();
  await bumpCounts(db, resource, null, prevRow);
}

/** A booking's trips, with the booking's visibility and times (a trip's bookings list in any order by index). */
export function tripLinks(row: Record<string, unknown>, booking: StoredRecords['bookings']) {
  return [...new Set(booking.trips.map((t) => t.trip_id))].map((trip_id) => ({
    booking_id: booking.id, trip_id, visible: row.visible as number,
    created_at: row.created_at as string, updated_at: row.updated_at as string,
  }));
}

async function linkTrips(db: Db, next: ReturnType<typeof tripLinks>, prev: ReturnType<typeof tripLinks>)
  : Promise<void> {
  if (JSON.stringify(next) === JSON.stringify(prev)) return;
  if (prev.length) await db.deleteFrom('booking_trips').where('booking_id', '=', prev[0].booking_id).execute();
  if (next.length) await db.insertInto('booking_trips').values(next).execute();
}
