// The filter as the form edits it: JSON text ('' is no filter), and the note shown when a saved filter matched none
// of the events its preview tried (docs/webhooks.md "Filters").
import type { Webhook } from '../types';

export const filterText = (filter: unknown): string => (filter === null ? '' : JSON.stringify(filter, null, 2));

/** The filter to send: null when empty; undefined when the text is not JSON. */
export function parseFilter(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A condition on a field added to the filter being written: into its `all`, or beside it in a new `all`. */
export function addCondition(text: string, condition: Record<string, unknown>): string {
  const current = parseFilter(text);
  if (current === null || current === undefined) return filterText({ all: [condition] });
  const all = (current as { all?: unknown[] }).all;
  return filterText(Array.isArray(all) ? { all: [...all, condition] } : { all: [current, condition] });
}

/** "Matched none of the last 50 events when saved", or null when there is nothing to say. */
export function neverMatched(w: Pick<Webhook, 'filter' | 'filter_preview'>): string | null {
  const p = w.filter_preview;
  if (w.filter === null || !p || p.total === 0 || p.matched > 0) return null;
  return `Its filter matched none of the last ${p.total} events when it was saved: it may never send anything.`;
}
