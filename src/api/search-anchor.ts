// How a search leads its list, decided by probing the search index first for at most 1,001 ids (one row: their
// number and a JSON array of them). At most 1,000 records hold the search: the list reads them by id, and their number
// is the total. More: the list walks the id order (on PostgreSQL checking each row, since a GIN lookup would read
// every match) and has no total. A long search made of common pieces with few matches ("33334@example": every e-mail
// address holds "@example") made the trigram index read the common trigrams' posting lists to their ends (50-70 ms
// at a million bookings), so it is probed piece by piece instead, and the records holding its rarest piece are
// read by id and checked for the whole search. One index lookup per list: a lookup of common trigrams costs about
// 0.3 ms at a million bookings (1.2 ms before the bulk load's final merge) however few records hold them all. On
// PostgreSQL, where the lookup reads every match, a search the planner estimates far more records hold is 'guessed'
// common without one (list.ts checks the guess by its walk's first page).
import type { Core } from '../core.js';
import type { ApiResource } from '../records/schemas.js';
import { readRows } from '../store/read.js';
import { searchCandidates, type SearchLead } from './list-plan.js';

/** Characters per piece: four trigrams. */
const PIECE = 6;
/**
 * Shorter searches are probed whole: their pieces overlap most of them, and probing a common piece cost more than
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

/** An estimate this many times the bound makes a search 'guessed' (a stale estimate costs one bounded walk). */
const GUESS_MARGIN = 10;
/**
 * A search a probe found common is 'guessed' for this long without another probe or estimate: the probe of a common
 * search is most of its list's cost (customers?search=kowalski at 100,000 customers: on PostgreSQL, which
 * underestimates it, a GIN lookup of 5,000 matches, about 5 ms of 10; on SQLite the FTS5 walk to 1,001 matches:
 * 9.5 ms p50 under wrk with it, 3.6 without), and a client paging through a search or polling it asks the same. What
 * is known goes stale as a guess does, and costs the same: one walk that comes up short before a probe.
 */
const KNOWN_COMMON_MS = 60_000;
/** Searches known common per process (the oldest is forgotten first). */
const KNOWN_COMMON_MAX = 1_000;
/** Per store: `resource NUL needle` → until when it counts as known common. */
const knownCommon = new WeakMap<object, Map<string, number>>();

function knownCommonOf(core: Core): Map<string, number> {
  let known = knownCommon.get(core.store);
  if (!known) knownCommon.set(core.store, known = new Map());
  return known;
}

/**
 * How a search leads (null: it is long and every piece of it is common, so the search index looks the whole search
 * up as before). A probe asks the search index for up to `bound + 1` ids of the records holding the whole search, or
 * for each piece of a long one: the one index lookup a led search makes, since a lookup of common trigrams costs about
 * 1 ms at a million bookings however few records hold them all.
 */
export async function searchLead(core: Core, resource: ApiResource, needle: string, bound: number, guess = true)
  : Promise<SearchLead | null> {
  const pieces = searchPieces(needle);
  const estimate = pieces.length === 0 ? core.store.sql.searchEstimate(resource, needle) : null;
  // A probe's finding that a search (probed whole) is common stands in for another probe a while.
  const known = pieces.length === 0 ? knownCommonOf(core) : null;
  const key = `${resource}\u0000${needle}`;
  if (guess && (known?.get(key) ?? 0) > core.clock.now()) return 'guessed';
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
  if (known) {
    known.delete(key); // re-inserted last when still common
    if (lead === 'common') {
      known.set(key, core.clock.now() + KNOWN_COMMON_MS);
      if (known.size > KNOWN_COMMON_MAX) known.delete(known.keys().next().value!);
    }
  }
  return lead;
}
