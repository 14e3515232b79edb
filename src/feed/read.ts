// The feed's statements: a page walks one index in id order whatever the filters (O(page) at any size): the
// primary key, `events_type_id` (one type), `events_record_id` (one record), or for several types one bounded walk of
// `events_type_id` per type, merged (at most perpage + 1 rows from each).
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/tables.js';
import type { EventRow } from '../webhooks/tables.js';
import type { FeedFilter } from './params.js';

type Db = Kysely<Database>;
export type FeedEvent = Pick<EventRow, 'id' | 'type' | 'resource' | 'record_id' | 'created_at' | 'data'
  | 'previous_attributes'>;
const COLUMNS = ['id', 'type', 'resource', 'record_id', 'created_at', 'data', 'previous_attributes'] as const;

/** One walk: the bounds, one type or record (or neither), in the filter's order. */
function walk(db: Db, f: FeedFilter, type: string | null, limit: number) {
  let q = db.selectFrom('events').select([...COLUMNS]).where('id', '>', f.above).where('test', '=', 0);
  if (f.below !== null) q = q.where('id', '<', f.below);
  // The columns the filter fixes lead the order too (the same order, since they are fixed): only the index they lead
  // gives it without a sort, so no planner walks the primary key past a rare type's or record's events.
  if (f.record) {
    q = q.where('resource', '=', f.record.resource).where('record_id', '=', f.record.id)
      .orderBy('resource', f.order).orderBy('record_id', f.order);
    // A record has few events: its index is walked and the types checked on each.
    if (f.types) q = q.where('type', 'in', f.types);
  } else if (type !== null) {
    q = q.where('type', '=', type).orderBy('type', f.order);
  }
  return q.orderBy('id', f.order).limit(limit);
}

/** The page query: `limit` events (ask perpage + 1 to know whether there are more). */
export function pageQuery(db: Db, f: FeedFilter, limit: number) {
  if (f.record || f.types === null) return walk(db, f, null, limit);
  if (f.types.length === 1) return walk(db, f, f.types[0], limit);
  const parts = f.types.map((type, i) => sql`SELECT * FROM (${walk(db, f, type, limit)}) AS ${sql.ref(`t${i}`)}`);
  return db.selectFrom(sql<FeedEvent>`(${sql.join(parts, sql` UNION ALL `)})`.as('e'))
    .select([...COLUMNS]).orderBy('id', f.order).limit(limit);
}

export async function readPage(db: Db, f: FeedFilter, perpage: number): Promise<{ items: FeedEvent[]; more: boolean }> {
  const rows = await pageQuery(db, f, perpage + 1).execute();
  return { items: rows.slice(0, perpage), more: rows.length > perpage };
}

export async function readEvent(db: Db, id: string): Promise<FeedEvent | undefined> {
  return db.selectFrom('events').select([...COLUMNS]).where('id', '=', id).where('test', '=', 0).executeTakeFirst();
}

/** What the long polls' shared watcher reads of new events (no payloads). */
export interface EventHead { id: string; type: string; resource: string | null; record_id: number | null }

export function newEventHeads(db: Db, after: string, limit: number): Promise<EventHead[]> {
  return db.selectFrom('events').select(['id', 'type', 'resource', 'record_id']).where('id', '>', after)
    .where('test', '=', 0).orderBy('id').limit(limit).execute();
}

export async function newestEventId(db: Db): Promise<string> {
  const row = await db.selectFrom('events').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
  return row?.id ?? '';
}

/** Whether a new event passes a waiting request's filter. */
export function matches(f: FeedFilter, e: EventHead): boolean {
  if (e.id <= f.above || (f.below !== null && e.id >= f.below)) return false;
  if (f.types && !f.types.includes(e.type)) return false;
  return !f.record || (e.resource === f.record.resource && Number(e.record_id) === f.record.id);
}
