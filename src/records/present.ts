// Turns stored records into the public shape the API returns and webhook payloads carry: adds the derived id
// lists (a booking's payment_ids, a customer's booking_ids) with one query per page, not one per record.
import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from '../store/tables.js';
import type { StoredRecords } from './normalize.js';
import { PUBLIC_SCHEMAS, type PublicRecords, type Resource } from './schemas.js';

type Db = Kysely<Database>;
/**
 * Runs a compiled read: through Kysely by default (inside a transaction, its `trx`), or the API's prepared
 * statements.
 */
export type ReadRows = <T>(query: CompiledQuery) => Promise<T[]>;
const throughKysely = (db: Db): ReadRows => async <T>(query: CompiledQuery) =>
  (await db.executeQuery<T>(query)).rows as T[];

function group(rows: Array<{ owner: number | null; id: number }>): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (const r of rows) {
    if (r.owner === null) continue;
    const list = map.get(r.owner) ?? [];
    list.push(r.id);
    map.set(r.owner, list);
  }
  return map;
}

/** Key order of the public schema, so webhook payloads (JSON.stringify) read exactly like API answers. */
const KEY_ORDER = Object.fromEntries(
  Object.entries(PUBLIC_SCHEMAS).map(([r, s]) => [r, Object.keys(s.properties)]),
) as Record<Resource, string[]>;

function inSchemaOrder<T>(resource: Resource, record: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const k of KEY_ORDER[resource]) out[k] = record[k];
  return out as T;
}

export async function present<R extends Resource>(
  db: Db, resource: R, stored: StoredRecords[R][], read: ReadRows = throughKysely(db),
): Promise<PublicRecords[R][]> {
  const withDerived = await addDerived(db, read, resource, stored);
  return withDerived.map((r) => inSchemaOrder<PublicRecords[R]>(resource, r));
}

async function addDerived<R extends Resource>(
  db: Db, read: ReadRows, resource: R, stored: StoredRecords[R][],
): Promise<Record<string, unknown>[]> {
  if (stored.length === 0) return [];
  const ids = stored.map((s) => s.id);
  if (resource === 'bookings') {
    const bookings = stored as StoredRecords['bookings'][];
    const payments = db.selectFrom('payments').select(['booking_id as owner', 'id'])
      .where('booking_id', 'in', ids).orderBy('id');
    const [rows, names] = await Promise.all([
      read<{ owner: number | null; id: number }>(payments.compile()),
      linkedNames(db, read, bookings),
    ]);
    const byBooking = group(rows);
    return bookings.map((b) => ({
      ...b, customer: withNames(b.customer, names), payment_ids: byBooking.get(b.id) ?? [],
    }));
  }
  if (resource === 'customers') {
    // No ORDER BY: SQLite would then walk every visible booking by id instead of the (visible, customer_id) index.
    const rows = await read<{ owner: number | null; id: number }>(db.selectFrom('bookings')
      .select(['customer_id as owner', 'id']).where('customer_id', 'in', ids).where('visible', '=', 1).compile());
    const byCustomer = group(rows.sort((a, b) => a.id - b.id));
    return stored.map((c) => ({ ...(c as object), booking_ids: byCustomer.get(c.id) ?? [] }));
  }
  return stored as unknown as Record<string, unknown>[];
}

type EmbeddedCustomer = StoredRecords['bookings']['customer'];
type Names = Map<number, { first_name: string | null; last_name: string | null }>;
const lacksNames = (c: EmbeddedCustomer): c is NonNullable<EmbeddedCustomer> =>
  c !== null && (c.first_name === null || c.last_name === null);

/**
 * The names of the customer records that bookings' embedded customers without names link to (a host that sends
 * only `{id, email}`, as the import example does): one query, and none when every embedded customer has names.
 */
async function linkedNames(db: Db, read: ReadRows, bookings: StoredRecords['bookings'][]): Promise<Names> {
  const ids = [...new Set(bookings.map((b) => b.customer).filter(lacksNames).map((c) => c.id))];
  if (ids.length === 0) return new Map();
  const query = db.selectFrom('customers').select(['id', 'data']).where('id', 'in', ids);
  const rows = await read<{ id: number; data: string }>(query.compile());
  return new Map(rows.map((r) => {
    const c = JSON.parse(r.data) as StoredRecords['customers'];
    return [Number(r.id), { first_name: c.first_name, last_name: c.last_name }];
  }));
}

/** The booking's own names win; each missing one is the linked record's. */
function withNames(c: EmbeddedCustomer, names: Names): EmbeddedCustomer {
  if (!lacksNames(c)) return c;
  const linked = names.get(c.id);
  if (!linked) return c;
  return { ...c, first_name: c.first_name ?? linked.first_name, last_name: c.last_name ?? linked.last_name };
}

export async function presentOne<R extends Resource>(
  db: Db, resource: R, stored: StoredRecords[R],
): Promise<PublicRecords[R]> {
  const [one] = await present(db, resource, [stored]);
  return one;
}
