// The preview (console, admin API, CLI): a filter run over the last 50 real events of the chosen types, so an admin
// sees "would have sent 12 of 50" before saving; what it found is kept with the webhook, and a filter that matched
// none is shown as such.
import type { Core } from '../../core.js';
import { badRequest } from '../../errors.js';
import { EVENT_TYPE_NAMES, isEventType, type EventType } from '../catalog.js';
import { matches, type FilterNode } from './language.js';
import { checkFilter } from './validate.js';

export const PREVIEW_EVENTS = 50;

export interface PreviewEvent {
  id: string;
  type: string;
  created_at: string;
  matched: boolean;
}

export interface FilterPreview {
  /** Of the events tried, how many the filter would have sent. */
  matched: number;
  /** How many events were tried: the last 50 of the types (fewer when fewer are stored). */
  total: number;
  checked_at: string;
  events: PreviewEvent[];
}

/**
 * The last PREVIEW_EVENTS real (not test) events of the types, newest first. One query per type, each an index
 * walk on events (type, id) that stops at 50 rows, so the cost does not grow with the table.
 */
export const lastEventsOfType = (db: Core['db'], type: string) => db.selectFrom('events')
  .select(['id', 'type', 'created_at', 'data', 'previous_attributes'])
  .where('type', '=', type).where('test', '=', 0).orderBy('id', 'desc').limit(PREVIEW_EVENTS);

async function lastEvents(core: Core, types: readonly EventType[]) {
  const perType = await Promise.all(types.map((type) => lastEventsOfType(core.db, type).execute()));
  // Event ids are time-sortable: the greatest are the newest.
  return perType.flat().sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).slice(0, PREVIEW_EVENTS);
}

export async function previewFilter(
  core: Core, types: readonly EventType[], node: FilterNode | null,
): Promise<FilterPreview> {
  const rows = await lastEvents(core, types);
  const events = rows.map((row) => ({
    id: row.id, type: row.type, created_at: row.created_at,
    matched: node === null || matches(node, {
      data: JSON.parse(row.data) as unknown,
      previous_attributes: row.previous_attributes ? JSON.parse(row.previous_attributes) as unknown : null,
    }),
  }));
  return {
    matched: events.filter((e) => e.matched).length, total: events.length,
    checked_at: new Date(core.clock.now()).toISOString(), events,
  };
}

/** The preview endpoint's body, `{events, filter}`: a 400 names the bad part, as on save. */
export async function previewFromBody(core: Core, body: unknown): Promise<FilterPreview> {
  const { events, filter } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const names = EVENT_TYPE_NAMES.join(', ');
  if (!Array.isArray(events) || events.length === 0 || !events.every(isEventType)) {
    throw badRequest('invalid_field', `events: choose at least one known event type (${names})`, { field: 'events' });
  }
  const types = EVENT_TYPE_NAMES.filter((t) => events.includes(t));
  return previewFilter(core, types, checkFilter(filter ?? null, types));
}
