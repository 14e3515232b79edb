// Reading the audit log newest first, as the console's tab, GET /admin/api/audit and `waypost audit list` do. Ids
// begin with their time (src/ids.ts), so `since`, `until` and `after` are bounds of the id order, and each filter
// has a (filter, id) index (migration 0031): a page walks one index and reads O(page) rows whatever the log's size.
import type { Kysely } from 'kysely';
import type { Core } from '../core.js';
import { invalidParameter } from '../errors.js';
import type { Database } from '../store/tables.js';
import {
  ACTOR_TYPES, AUDIT_ACTIONS, type ActorType, type AuditAction, type AuditDetails, type AuditEntryView, type AuditPage,
} from './views.js';

export const AUDIT_ID_PATTERN = '^aud_[0-9a-f]{28}$';
const AUDIT_ID = new RegExp(AUDIT_ID_PATTERN);
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;
export const MAX_PER_PAGE = 100;

export interface AuditQuery {
  action?: string;
  actor_type?: string;
  target_id?: string;
  since?: string; // ISO 8601, inclusive
  until?: string; // ISO 8601, inclusive
  after?: string; // the `next` of the previous page
  perpage?: number;
}

/** A page's bounds and filters, checked: ids strictly below `below`, at or above `from`. */
export interface AuditFilter {
  action: AuditAction | null;
  actorType: ActorType | null;
  targetId: string | null;
  from: string | null;
  below: string | null;
  limit: number;
}

/** The smallest audit id made at `ms`. */
export const auditIdAt = (ms: number): string => `aud_${Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0')}`;

function time(name: string, raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const ms = ISO_TIME.test(raw) ? Date.parse(raw) : NaN;
  if (!Number.isFinite(ms)) throw invalidParameter(name, 'expected an ISO 8601 time, e.g. 2026-11-29T08:00:00Z');
  return ms;
}

/** The request checked (400 naming the parameter) and turned into index bounds. */
export function auditFilter(q: AuditQuery): AuditFilter {
  if (q.action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(q.action)) {
    throw invalidParameter('action', `expected one of ${AUDIT_ACTIONS.join(', ')}`);
  }
  if (q.actor_type !== undefined && !(ACTOR_TYPES as readonly string[]).includes(q.actor_type)) {
    throw invalidParameter('actor_type', `expected one of ${ACTOR_TYPES.join(', ')}`);
  }
  if (q.target_id !== undefined && (q.target_id.length === 0 || q.target_id.length > 200)) {
    throw invalidParameter('target_id', 'expected an id, e.g. wh_… or key_…');
  }
  if (q.after !== undefined && !AUDIT_ID.test(q.after)) {
    throw invalidParameter('after', 'not the `next` of a previous page (aud_…)');
  }
  const perpage = q.perpage ?? 25;
  if (!Number.isInteger(perpage) || perpage < 1 || perpage > MAX_PER_PAGE) {
    throw invalidParameter('perpage', `expected a whole number from 1 to ${MAX_PER_PAGE}`);
  }
  const since = time('since', q.since);
  const until = time('until', q.until);
  let below = until === null ? null : auditIdAt(until + 1); // until is inclusive
  if (q.after !== undefined && (below === null || q.after < below)) below = q.after;
  return {
    action: (q.action as AuditAction | undefined) ?? null,
    actorType: (q.actor_type as ActorType | undefined) ?? null,
    targetId: q.target_id ?? null,
    from: since === null ? null : auditIdAt(since),
    below,
    limit: perpage,
  };
}

/** One page's query, newest first: one more row than the page, to know whether another follows. */
export function auditPageQuery(db: Kysely<Database>, f: AuditFilter) {
  let q = db.selectFrom('audit_log').selectAll();
  if (f.action !== null) q = q.where('action', '=', f.action);
  if (f.actorType !== null) q = q.where('actor_type', '=', f.actorType);
  if (f.targetId !== null) q = q.where('target_id', '=', f.targetId);
  if (f.from !== null) q = q.where('id', '>=', f.from);
  if (f.below !== null) q = q.where('id', '<', f.below);
  return q.orderBy('id', 'desc').limit(f.limit + 1);
}

function parseDetails(text: string | null): AuditDetails | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as AuditDetails;
  } catch {
    return null;
  }
}

export async function listAudit(core: Core, q: AuditQuery): Promise<AuditPage> {
  const f = auditFilter(q);
  const rows = await auditPageQuery(core.db, f).execute();
  const items: AuditEntryView[] = rows.slice(0, f.limit).map((r) => ({
    id: r.id, at: r.at, actor_type: r.actor_type as ActorType, actor: r.actor, action: r.action as AuditAction,
    target_type: r.target_type, target_id: r.target_id, details: parseDetails(r.details), ip: r.ip,
  }));
  return { items, next: rows.length > f.limit ? items[items.length - 1].id : null };
}
