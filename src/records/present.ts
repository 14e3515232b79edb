// Turns stored records into the public shape the API returns and webhook payloads carry: adds the derived id
// lists (a booking's payment_ids, a customer's booking_ids) with one query per page, not one per record.
import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from '../store/tables.js';
import type { StoredRecords } from './normalize.js';
import { PUBLIC_SCHEMAS, type PublicRecords, type Resource } from './schemas.js';

type Db = Kysely<Database>;
/** Runs a compiled read: through Kysely by default (inside a transaction, its `trx`), or the API's prepared statements. */
export type ReadRows = <T>(query: CompiledQuery) => Promise<T[]>;
const throughKysely = (db: Db): ReadRows => async <T>(query: CompiledQuery) => (await db.executeQuery<T>(query)).rows as T[];

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
const KEY_ORDER = Object.fromEntries(Object.entries(PUBLIC_SCHEMAS).map(([r, s]) => [r, Object.keys(s.properties)])) as Record<Resource, string[]>;

function inSchemaOrder<T>(resource: Resource, record: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const k of KEY_ORDER[resource]) out[k] = record[k];
  return out as T;
}

export async function present<R extends Resource>(db: Db, resource: R, stored: StoredRecords[R][], read: ReadRows = throughKysely(db)): Promise<PublicRecords[R][]> {
  const withDerived = await addDerived(db, read, resource, stored);
  return withDerived.map((r) => inSchemaOrder<PublicRecords[R]>(resource, r));
}

async function addDerived<R extends Resource>(db: Db, read: ReadRows, resource: R, stored: StoredRecords[R][]): Promise<Record<string, unknown>[]> {
  if (stored.length === 0) return [];
  const ids = stored.map((s) => s.id);
  if (resource === 'bookings') {
    const rows = await read<{ owner: number | null; id: number }>(db.selectFrom('payments').select(['booking_id as owner', 'id']).where('booking_id', 'in', ids).orderBy('id').compile());
    const byBooking = group(rows);
    return stored.map((b) => ({ ...(b as object), payment_ids: byBooking.get(b.id) ?? [] }));
  }
  if (resource === 'customers') {
    // No ORDER BY: SQLite would then walk every visible booking by id instead of the (visible, customer_id) index.
    const rows = await read<{ owner: number | null; id: number }>(db.selectFrom('bookings').select(['customer_id as owner', 'id']).where('customer_id', 'in', ids).where('visible', '=', 1).compile());
    const byCustomer = group(rows.sort((a, b) => a.id - b.id));
    return stored.map((c) => ({ ...(c as object), booking_ids: byCustomer.get(c.id) ?? [] }));
  }
  return stored as unknown as Record<string, unknown>[];
}

export async function presentOne<R extends Resource>(db: Db, resource: R, stored: StoredRecords[R]): Promise<PublicRecords[R]> {
  const [one] = await present(db, resource, [stored]);
  return one;
}
