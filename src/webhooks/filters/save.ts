// A webhook's filter on save (create / update, src/webhooks/manage.ts): checked against its event types, stored as
// JSON with what the preview found then, and shown back in the webhook's representation.
import type { Core } from '../../core.js';
import type { EventType } from '../catalog.js';
import type { WebhookRow } from '../tables.js';
import { previewFilter } from './preview.js';
import { checkFilter, storedForm } from './validate.js';

/** What the preview found when the filter was saved; a filter that matched none of them is shown as such. */
export interface SavedPreview {
  matched: number;
  total: number;
  checked_at: string;
}

export interface FilterView {
  /** The payload filter (docs/webhooks.md "Filters"); null: every event of its types. */
  filter: unknown;
  filter_preview: SavedPreview | null;
}

export function filterView(row: Pick<WebhookRow, 'filter' | 'filter_preview'>): FilterView {
  return {
    filter: row.filter ? JSON.parse(row.filter) as unknown : null,
    filter_preview: row.filter && row.filter_preview ? JSON.parse(row.filter_preview) as SavedPreview : null,
  };
}

/**
 * The columns to store for a filter as sent (`raw`; undefined: unchanged, kept from `current`) with the webhook's
 * event types: a 400 naming the part when it is invalid or names a field none of the types has.
 */
export async function filterColumns(
  core: Core, raw: unknown, events: readonly EventType[], current: string | null = null,
): Promise<Pick<WebhookRow, 'filter' | 'filter_preview'>> {
  const node = raw === undefined
    ? (current === null ? null : checkFilter(JSON.parse(current), events))
    : checkFilter(raw, events);
  if (node === null) return { filter: null, filter_preview: null };
  const { matched, total, checked_at } = await previewFilter(core, events, node);
  return {
    filter: JSON.stringify(storedForm(node)),
    filter_preview: JSON.stringify({ matched, total, checked_at } satisfies SavedPreview),
  };
}
