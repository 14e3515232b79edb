// The tuning of lists and searches, in one place: each value with why it is what it is. The measurements behind
// them are in docs/PERFORMANCE.md ("Search tuning constants"); the plan tests (test/api/list-plans.test.ts,
// search-anchor.test.ts, search-guess.test.ts) and `npm run bench:scale-api` check them.

/** `page` reaches this many rows deep at most: OFFSET walks every row before the page (`after` pages at any depth). */
export const MAX_OFFSET = 10_000;

/**
 * A filtered total is counted up to this many matches, and a search's probe asks its index for one more: both bounds
 * are this one value, since a search read by its ids (at most this many) takes their number as its total.
 */
export const COUNTED_MATCHES = 1_000;

/**
 * Records a page of a search many records hold walks at most in id order where the search index hands over all its
 * matches at once (PostgreSQL's GIN): a page of 11 when 0.11% of them hold the search; less, and the index is asked.
 */
export const SEARCH_WALK = 10_000;

/** Characters per probed piece of a long search: four trigrams, rare enough to find few records, short to spread. */
export const PIECE = 6;

/** Searches shorter than this are probed whole: their pieces overlap most of them, and a probe can cost the page. */
export const MIN_LENGTH = 10;

/** A piece this rare leads at once: probing further pieces could save little. */
export const RARE_ENOUGH = 100;

/** Pieces probed at most: each probe is one index lookup, paid by every list of the search. */
export const MAX_PROBES = 6;

/** A planner's estimate of this many times COUNTED_MATCHES makes a search 'guessed' common without a probe. */
export const GUESS_MARGIN = 10;

/** A probe's finding that a search is common stands in for another probe this long (a stale one costs one walk). */
export const KNOWN_COMMON_MS = 60_000;

/** Searches known common kept per Core at most, the oldest forgotten first (a bound on the memory they take). */
export const KNOWN_COMMON_MAX = 1_000;
