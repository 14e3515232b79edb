// Seeds the demo catalogue through the normal write path (validated, events fire so subscribed webhooks see it).
// Records have fixed ids and dates, so seeding again finds nothing to change and fires nothing. Every record is
// marked in `demo_records` in the transaction that writes it: host writes naming one are refused
// (src/host/demo-guard.ts) and `waypost demo --remove` (remove.ts) finds exactly these.
import type { Kysely } from 'kysely';
import type { Core } from '../core.js';
import { conflict } from '../errors.js';
import { putMany } from '../host/write.js';
import { RESOURCES, type Resource } from '../records/schemas.js';
import { validateInput } from '../records/validate.js';
import type { Database, UntypedDb } from '../store/tables.js';
import { demoCatalogue, type DemoOptions } from './catalogue.js';

export type SeedSummary = Record<Resource, { created: number; changed: number; unchanged: number }>;

/** Records per transaction: small enough not to hold the SQLite write lock for long while a server runs. */
const BATCH = 100;

export async function seedDemo(core: Core, options: DemoOptions = {}): Promise<SeedSummary> {
  const host = await hostRecord(core.db);
  if (host) {
    throw conflict('host_data_present', `This database holds a site's records (${host.resource} ${host.id} is not `
      + 'the demo\'s), and the demo never goes beside them: give `waypost demo` a database of its own '
      + '(--database URL; without it and without --into, it uses sqlite:./data/demo.db).');
  }
  const catalogue = demoCatalogue(options);
  const summary = Object.fromEntries(
    RESOURCES.map((r) => [r, { created: 0, changed: 0, unchanged: 0 }]),
  ) as SeedSummary;
  for (const resource of RESOURCES) {
    const records = catalogue[resource];
    for (let i = 0; i < records.length; i += BATCH) {
      const items = records.slice(i, i + BATCH)
        .map((r) => ({ resource, id: r.id, input: validateInput(resource, r.data) }));
      await putMany(core, items, {
        onItem: ({ created, changed }) => summary[resource][created ? 'created' : changed ? 'changed' : 'unchanged']++,
        inTransaction: (trx) => trx.insertInto('demo_records').values(items.map(({ id }) => ({ resource, id })))
          .onConflict((oc) => oc.columns(['resource', 'id']).doNothing()).execute().then(() => undefined),
      });
    }
  }
  return summary;
}

/** Remembers an API key the demo made, for `waypost demo --remove`. */
export async function markDemoKey(core: Core, keyId: string): Promise<void> {
  await core.db.insertInto('demo_api_keys').values({ key_id: keyId }).execute();
}

/** A record the demo did not write (a site's), or null: the first found, from each table's first unmarked row. */
export async function hostRecord(db: Kysely<Database>): Promise<{ resource: Resource; id: number } | null> {
  for (const resource of RESOURCES) {
    const row = await (db as unknown as UntypedDb).selectFrom(resource).select('id')
      .where((eb) => eb.not(eb.exists(eb.selectFrom('demo_records').select('demo_records.id')
        .where('demo_records.resource', '=', resource).whereRef('demo_records.id', '=', `${resource}.id`))))
      .limit(1).executeTakeFirst();
    if (row) return { resource, id: Number(row.id) };
  }
  return null;
}
