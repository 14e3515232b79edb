// A long search made of common pieces with few matches ("33334@example": every e-mail address holds "@example")
// made the trigram index read the common trigrams' posting lists to their ends: 50-70 ms at a million bookings on
// either database, against 1 ms for the rare piece alone. So a long search is first probed piece by piece (a
// bounded count each, cheap for a rare piece and for a common one alike), and its rarest piece, when it is rare,
// leads the index lookup (store/list-sql.ts); the whole search still decides what matches.
import type { Core } from '../core.js';
import type { ApiResource } from '../records/schemas.js';
import { readRows } from '../store/read.js';
import { countQueries } from './list-plan.js';

/** Characters per piece: four trigrams. */
const PIECE = 6;
/**
 * Shorter searches lead by themselves: their pieces overlap most of them, and probing a common piece cost more than
 * the search it could lead (customers?search=kowalski on PostgreSQL at 100,000 customers: 16 ms of probes for a
 * 0.2 ms page).
 */
const MIN_LENGTH = 10;
/** A piece this rare leads at once: further probes could save little. */
const RARE_ENOUGH = 100;
const MAX_PROBES = 6;

/** The pieces probed: PIECE characters each, spread evenly from the first to the last character of a long search. */
export function searchPieces(needle: string): string[] {
  if (needle.length < MIN_LENGTH) return [];
  const span = needle.length - PIECE;
  const count = Math.min(MAX_PROBES, Math.ceil(span / 3) + 1);
  const starts = new Set(Array.from({ length: count }, (_, i) => Math.round((i * span) / (count - 1))));
  return [...new Set([...starts].map((at) => needle.slice(at, at + PIECE)))];
}

/**
 * The rarest piece of a long search and how many records hold it, when at most `bound` do (it then leads; none: the
 * search matches nothing), else null (the search alone leads). Each probe is the bounded count a list led by that
 * piece makes first (list-plan.ts `countQueries`), so the list reuses the count of the piece it is led by.
 */
export async function searchAnchor(core: Core, resource: ApiResource, needle: string, bound: number)
  : Promise<{ piece: string; n: number } | null> {
  let best: { piece: string; n: number } | null = null;
  for (const piece of searchPieces(needle)) {
    const { walk } = countQueries(core.store.sql, {
      resource, filters: { search: piece }, driver: 'search', orderby: 'id', order: 'desc', cursor: null,
      limit: bound + 1, offset: 0,
    }, bound + 1);
    const [row] = await readRows<{ n: number }>(core, walk.compile(core.db));
    const n = Number(row?.n ?? 0);
    if (n <= bound && (best === null || n < best.n)) best = { piece, n };
    if (n <= RARE_ENOUGH) break;
  }
  return best;
}
