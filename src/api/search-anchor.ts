// How a search leads its list, decided by probing the search index first for at most COUNTED_MATCHES + 1 ids (one
// row: their number and a JSON array of them). At most COUNTED_MATCHES records hold the search: the list reads them
// by id, and their number is the total. More: the list walks the id order (on PostgreSQL checking each row, since a
// GIN lookup would read every match) and has no total. A long search made of common pieces with few matches
// ("33334@example": every e-mail address holds "@example") made the trigram index read the common trigrams' posting
// lists to their ends, so it is probed piece by piece instead, and the records holding its rarest piece are read by
// id and checked for the whole search. One index lookup per list: a lookup of common trigrams costs little however
// few records hold them all. On PostgreSQL, where the lookup reads every match, a search the planner estimates far
// more records hold is 'guessed' common without one; so is one a probe found common lately (`core.knownCommon`).
// search-plan.ts turns the lead into the list's plan. Tuning: list-tuning.ts; figures: docs/PERFORMANCE.md.
import type { Core } from '../core.js';
import type { ApiResource } from '../records/schemas.js';
import { readRows } from '../store/read.js';
import { searchCandidates } from './list-plan.js';
import { GUESS_MARGIN, MAX_PROBES, MIN_LENGTH, PIECE, RARE_ENOUGH } from './list-tuning.js';

/** What a probe of the search index finds (search-plan.ts makes the list's plan of it). */
export type SearchLead =
  /** The records (at most the bound) holding the search, or the rarest piece of a long one (`exact` false: each is
   * checked for the whole search). None: the search matches nothing. */
  | { ids: number[]; exact: boolean }
  /** More records than the bound hold the whole search. */
  | 'common'
  /**
   * As 'common', without a probe: from the planner's estimate (PostgreSQL), or a probe's finding of the last minute
   * (both databases). A walk that comes up short then asks for one.
   */
  | 'guessed';

/** The pieces probed: PIECE characters each, spread evenly from the first to the last character of a long search. */
export function searchPieces(needle: string): string[] {
  if (needle.length < MIN_LENGTH) return [];
  const span = needle.length - PIECE;
  const count = Math.min(MAX_PROBES, Math.ceil(span / 3) + 1);
  const starts = new Set(Array.from({ length: count }, (_, i) => Math.round((i * span) / (count - 1))));
  return [...new Set([...starts].map((at) => needle.slice(at, at + PIECE)))];
}

/**
 * How a search leads (null: it is long and every piece of it is common, so the search index looks the whole search
 * up as before). A probe asks the search index for up to `bound + 1` ids of the records holding the whole search, or
 * for each piece of a long one: the one index lookup a led search makes. `guess`: from the planner's estimate or what
 * a probe found lately, if it can.
 */
export async function searchLead(core: Core, resource: ApiResource, needle: string, bound: number, guess = true)
  : Promise<SearchLead | null> {
  const pieces = searchPieces(needle);
  const estimate = pieces.length === 0 ? core.store.sql.searchEstimate(resource, needle) : null;
  // A probe's finding that a search (probed whole) is common stands in for another probe a while.
  const known = pieces.length === 0 ? core.knownCommon : null;
  if (guess && known?.has(resource, needle, core.clock.now())) return 'guessed';
  if (guess && estimate) {
    const [row] = await readRows<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(core,
      estimate.compile(core.db));
    if ((row?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0) >= GUESS_MARGIN * bound) return 'guessed';
  }
  let best: { ids: number[]; exact: boolean } | null = null;
  for (const piece of pieces.length > 0 ? pieces : [needle]) {
    const [found] = await readRows<{ n: number; ids: string | number[] | null }>(core,
      searchCandidates(core.store.sql, resource, piece, bound + 1).compile(core.db));
    const n = Number(found?.n ?? 0);
    if (n <= bound && (best === null || n < best.ids.length)) {
      const ids = typeof found?.ids === 'string' ? JSON.parse(found.ids) as number[] : found?.ids ?? [];
      best = { ids: n === 0 ? [] : ids, exact: piece === needle };
    }
    if (n <= RARE_ENOUGH) break;
  }
  const lead = best ?? (pieces.length === 0 ? 'common' : null);
  known?.record(resource, needle, lead === 'common', core.clock.now());
  return lead;
}
