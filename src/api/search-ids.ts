// The ids of the newest records a search finds, read as the REST API reads a search's first page (list.ts: the
// probe, the walk or the index, whichever costs O(page)), for searches made elsewhere: the delivery log's search by
// e-mail, name or trip (src/webhooks/log-search.ts) reaches it through `core.findRecordIds`.
import type { Core, FindRecordIds } from '../core.js';
import { listRecords } from './list.js';

/** The newest `limit` (1-100) records of `resource` holding `search` (3 characters or more), and whether more do. */
export async function findRecordIds(core: Core, ...[resource, search, limit]: Parameters<FindRecordIds>)
  : ReturnType<FindRecordIds> {
  const page = await listRecords(core, resource, { search, perpage: limit });
  return { ids: page.items.map((r) => Number(r.id)), more: page.hasMore };
}
