// `waypost demo --remove`: removes exactly what the demo made in this database, whatever a site wrote beside it:
// the records marked in `demo_records` (with their search text, trip links and counts: src/records/rows.ts), the
// events they caused with those events' deliveries and attempts, and the API keys it made. Removing fires no event
// (as a host DELETE fires none), and the site's records, events and keys stay as they are.
import type { Core } from '../core.js';
import { deleteApiKey } from '../api/keys.js';
import { retryOnConflict } from '../host/locks.js';
import { readStored, deleteStored } from '../records/rows.js';
import { RESOURCES, type Resource } from '../records/schemas.js';
import { lockNames } from '../store/locks.js';

export interface RemoveSummary {
  records: Record<Resource, number>;
  events: number;
  deliveries: number;
  api_keys: number;
}

/** Rows per transaction: short transactions, so a running server's writes wait for none of them long. */
const BATCH = 200;
/** Records that point at others go first (reviews and payments before their trips and bookings). */
const REMOVAL_ORDER: Resource[] = ['reviews', 'enquiries', 'payments', 'bookings', 'customers', 'trips'];

export async function removeDemo(core: Core): Promise<RemoveSummary> {
  const summary: RemoveSummary = {
    records: Object.fromEntries(RESOURCES.map((r) => [r, 0])) as Record<Resource, number>,
    events: 0, deliveries: 0, api_keys: 0,
  };
  // Events first, while the marks still say which records are the demo's (events name their record by id).
  for (;;) {
    const ids = (await core.db.selectFrom('events')
      .innerJoin('demo_records', (join) => join.onRef('demo_records.resource', '=', 'events.resource')
        .onRef('demo_records.id', '=', 'events.record_id'))
      .select('events.id').where('events.test', '=', 0).limit(BATCH).execute()).map((r) => r.id);
    if (ids.length === 0) break;
    await core.db.transaction().execute(async (trx) => {
      const deliveries = trx.selectFrom('deliveries').select('id').where('event_id', 'in', ids);
      await trx.deleteFrom('delivery_attempts').where('delivery_id', 'in', deliveries).execute();
      const gone = await trx.deleteFrom('deliveries').where('event_id', 'in', ids).executeTakeFirst();
      await trx.deleteFrom('events').where('id', 'in', ids).execute();
      summary.deliveries += Number(gone.numDeletedRows);
      summary.events += ids.length;
    });
  }
  for (const resource of REMOVAL_ORDER) summary.records[resource] = await removeRecords(core, resource);
  if (Object.values(summary.records).some((n) => n > 0)) core.bus.emit('records.changed', [...RESOURCES]);

  const keys = await core.db.selectFrom('demo_api_keys').innerJoin('api_keys', 'api_keys.id', 'demo_api_keys.key_id')
    .select('api_keys.id').execute();
  for (const { id } of keys) await deleteApiKey(core, id);
  await core.db.deleteFrom('demo_api_keys').execute();
  summary.api_keys = keys.length;
  return summary;
}

/** Deletes the demo's records of one resource and their marks, a batch per transaction; returns how many. */
async function removeRecords(core: Core, resource: Resource): Promise<number> {
  let removed = 0;
  for (;;) {
    const ids = (await core.db.selectFrom('demo_records').select('id').where('resource', '=', resource)
      .orderBy('id').limit(BATCH).execute()).map((r) => Number(r.id));
    if (ids.length === 0) return removed;
    removed += await retryOnConflict(() => core.db.transaction().execute(async (trx) => {
      // The locks a host write of these ids takes: one waiting on them then finds neither the record nor its mark.
      await lockNames(trx, ids.map((id) => `${resource}:${id}`));
      let n = 0;
      for (const id of ids) {
        const previous = await readStored(trx, resource, id);
        if (!previous) continue;
        await deleteStored(trx, resource, previous);
        n++;
      }
      await trx.deleteFrom('demo_records').where('resource', '=', resource).where('id', 'in', ids).execute();
      return n;
    }));
  }
}
