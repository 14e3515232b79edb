// A list's search plan (list-plan.ts `SearchPlan`): made from the probe of the search index (search-anchor.ts) before
// the page is read, and made again at most once after it, when the page came up short of its limit:
//   walk (guessed) ── short ──▶ probe: nothing | ids | walk ─▶ index (PostgreSQL: the bounded walk found too few)
//   walk (probed)  ── short ──▶ index (PostgreSQL; SQLite's walk is the search index's own, so its page stands)
// A short page read by ids or by the index is the whole answer.
import type { Core } from '../core.js';
import type { Shape, SearchPlan } from './list-plan.js';
import { COUNTED_MATCHES } from './list-tuning.js';
import { searchLead, type SearchLead } from './search-anchor.js';

const planOf = (lead: SearchLead | null): SearchPlan => {
  if (lead === null) return { by: 'index', counted: true };
  if (typeof lead === 'object') return lead.ids.length === 0 ? { by: 'nothing' } : { by: 'ids', ...lead };
  return { by: 'walk', guessed: lead === 'guessed' };
};

/** The plan of a list a search drives, before its page is read (`guess`: without a probe, if it can). */
export async function planSearch(core: Core, shape: Shape, guess: boolean): Promise<SearchPlan> {
  return planOf(await searchLead(core, shape.resource, shape.filters.search!, COUNTED_MATCHES, guess));
}

/**
 * The one re-plan, when the page `shape.search` read came up short (fewer rows than its limit): a guess was stale, the
 * list ends, or a bounded walk's matches lie further on. A probe tells which, so a search few records hold still gets
 * its total. Null: the page stands.
 */
export async function replan(core: Core, shape: Shape): Promise<SearchPlan | null> {
  const plan = shape.search;
  if (plan?.by !== 'walk') return null;
  const next = plan.guessed ? await planSearch(core, shape, false) : plan;
  if (next.by === 'nothing' || next.by === 'ids') return next;
  // More than COUNTED_MATCHES hold it: where the walk was bounded, the index finds the rest (the short walk is not
  // run again); where the walk was the search index's own (SQLite), its page was the answer.
  return next.by === 'walk' && !core.store.sql.orderedSearch ? { by: 'index', counted: false } : null;
}
