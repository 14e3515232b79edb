// Seeds the demo catalogue through the normal write path (validated, events fire so subscribed webhooks see it).
// Records have fixed ids and dates, so seeding again finds nothing to change and fires nothing.
import type { Core } from '../core.js';
import { putMany } from '../host/write.js';
import { RESOURCES, type Resource } from '../records/schemas.js';
import { validateInput } from '../records/validate.js';
import { demoCatalogue, type DemoOptions } from './catalogue.js';

export type SeedSummary = Record<Resource, { created: number; changed: number; unchanged: number }>;

/** Records per transaction: small enough not to hold the SQLite write lock for long while a server runs. */
const BATCH = 100;

export async function seedDemo(core: Core, options: DemoOptions = {}): Promise<SeedSummary> {
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
      });
    }
  }
  return summary;
}
