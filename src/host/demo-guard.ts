// Keeps a site's records from merging into the demo catalogue. `waypost demo` (src/demo/) marks every record it
// writes in `demo_records`, with ids a site uses too (customer 29, review 3): a host write landing on one would
// update the demo's record (keeping its bookings, firing `*.updated` where the site expects `*.created`). So a host
// write naming a demo record, as itself or as a record it points at (a booking's customer and trips, a payment's
// booking, a review's or an enquiry's trip), is refused with a 409 until the demo is removed.
import { sql, type Kysely } from 'kysely';
import { conflict } from '../errors.js';
import type { InputRecords, Resource } from '../records/schemas.js';
import type { Database } from '../store/tables.js';
import { readAgainIfDropped } from './locks.js';

type Db = Kysely<Database>;
const ANY_DEMO = sql`SELECT 1 FROM demo_records LIMIT 1`;
export type RecordRef = readonly [Resource, number];

export const REMOVE_DEMO_HINT = 'remove the demo with `npx waypost demo --remove` (run with this server\'s '
  + 'DATABASE_URL), or run the demo in a database of its own (`npx waypost demo`, the default)';

/** The record a write names and the records its input points at. */
export function namedRecords(resource: Resource, id: number, input: InputRecords[Resource] | null): RecordRef[] {
  const refs: RecordRef[] = [[resource, id]];
  if (input === null) return refs;
  if (resource === 'bookings') {
    const b = input as InputRecords['bookings'];
    if (b.customer?.id !== undefined) refs.push(['customers', b.customer.id]);
    for (const t of b.trips ?? []) refs.push(['trips', t.trip_id]);
  } else if (resource === 'payments') {
    refs.push(['bookings', (input as InputRecords['payments']).booking_id]);
  } else if (resource === 'reviews') {
    refs.push(['trips', (input as InputRecords['reviews']).trip_id]);
  } else if (resource === 'enquiries') {
    const trip = (input as InputRecords['enquiries']).trip;
    if (trip?.id != null) refs.push(['trips', trip.id]);
  }
  return refs;
}

/** Throws a 409 naming the first demo record among `refs`. */
export async function refuseDemoRecords(db: Db, refs: readonly RecordRef[]): Promise<void> {
  // Almost every database holds no demo: a fixed statement says so (SQLite: 17 µs, where building the lookup below
  // costs 100 µs of a 1.3 ms write); on PostgreSQL either is one round trip.
  if ((await ANY_DEMO.execute(db)).rows.length === 0) return;
  const held = await db.selectFrom('demo_records').select(['resource', 'id'])
    .where((eb) => eb.or(refs.map(([resource, id]) => eb.and([eb('resource', '=', resource), eb('id', '=', id)]))))
    .limit(1).executeTakeFirst();
  if (!held) return;
  const [resource, id] = refs[0];
  const what = held.resource === resource && Number(held.id) === id
    ? `${resource} ${id} is a record of the demo catalogue`
    : `${resource} ${id} points at ${held.resource} ${held.id}, a record of the demo catalogue`;
  throw conflict('demo_record', `${what} (\`waypost demo\`): this database holds the demo, and a site's records `
    + `never merge into it. To connect a site, ${REMOVE_DEMO_HINT}; then send the record again.`);
}

/** How many records the demo holds here (0 when there is no demo). */
export async function demoRecordCount(db: Db): Promise<number> {
  const row = await db.selectFrom('demo_records').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** What the Host API's batch answer adds while the demo is here: its count and what to do (nothing without it). */
export async function demoWarning(db: Db): Promise<{ demo_records?: number; warning?: string }> {
  const n = await readAgainIfDropped(() => demoRecordCount(db)); // as the batch's writes are (host/locks.ts)
  if (n === 0) return {};
  return {
    demo_records: n,
    warning: `This Waypost holds the demo catalogue (${n} records from \`waypost demo\`): writes naming them are `
      + `refused (409), so a site's records never merge into the demo. Before connecting a site, ${REMOVE_DEMO_HINT}.`,
  };
}
