// Webhook management (DESIGN.md "Webhooks"): create, update, enable, disable, delete, reveal and rotate the secret.
// The admin JSON API and the CLI both call these functions. Saving never loses history: deliveries and attempts
// are kept, and delete is a soft delete.
import type { Kysely } from 'kysely';
import type { Core } from '../core.js';
import { badRequest, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { iso } from '../records/normalize.js';
import type { Database } from '../store/tables.js';
import { EVENT_TYPE_NAMES, isEventType, type EventType } from './catalog.js';
import { cancelPending, disableWebhook } from './disable.js';
import { filterColumns, filterView, type FilterView } from './filters/save.js';
import { previousSecretExpiry, rotateSecret, type RotatedSecret } from './rotation.js';
import { generateSecret, openSecret, sealSecret } from './secrets.js';
import { checkTargetUrl } from './ssrf.js';
import { readPrivateTargets } from './private-targets.js';
import type { DeliveryStatus, WebhookOrdering, WebhookRow } from './tables.js';
import { releaseOrphans } from './delivery/order.js';
import { closeOffPeriod } from './off-periods.js';

type Db = Kysely<Database>;

export interface LastDelivery {
  id: string;
  status: DeliveryStatus;
  last_status: number | null;
  created_at: string;
}

export interface WebhookView extends FilterView {
  id: string;
  name: string;
  url: string;
  events: EventType[];
  active: boolean;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
  last_delivery: LastDelivery | null;
  /** Advice about the URL, e.g. that plain http:// is not encrypted; null when there is none. */
  warning: string | null;
  /** While a rotation's grace period lasts, when the previous secret stops signing (ISO 8601); else null. */
  previous_secret_expires_at: string | null;
  /** The most deliveries per second sent to it, across all workers; null: unlimited. */
  max_per_second: number | null;
  /** 'record': the events of one record arrive one after another, in commit order (docs/webhooks.md "Ordering"). */
  ordering: WebhookOrdering;
}

export interface CreatedWebhook extends WebhookView {
  secret: string;
}

export interface WebhookInput {
  name?: unknown;
  url?: unknown;
  events?: unknown;
  active?: unknown;
  max_per_second?: unknown;
  filter?: unknown;
  ordering?: unknown;
}

export const DISABLED_BY_ADMIN = 'Disabled by an admin.';
export const DELETED_REASON = 'The webhook was deleted.';
const FIELDS = ['name', 'url', 'events', 'active', 'max_per_second', 'filter', 'ordering'];
export const ORDERINGS: readonly WebhookOrdering[] = ['none', 'record'];
export const MAX_PER_SECOND_LIMIT = 1000;

const invalid = (field: string, detail: string) => badRequest('invalid_field', `${field}: ${detail}`, { field });

/** The warning shown next to a stored URL in lists (the same advice checkTargetUrl gives at save time). */
export function urlWarning(url: string): string | null {
  return url.startsWith('http://') ? 'http:// sends payloads unencrypted; https:// is recommended' : null;
}

// ---------- validation (the field named in every 400) ----------

function checkBody(body: unknown): WebhookInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('invalid_body', 'the body must be a JSON object', { field: '(body)' });
  }
  const unknown = Object.keys(body).find((k) => !FIELDS.includes(k));
  if (unknown) throw invalid(unknown, `is not a webhook field (expected ${FIELDS.join(', ')})`);
  return body as WebhookInput;
}

function checkName(value: unknown): string {
  if (typeof value !== 'string' || value.trim().length === 0) throw invalid('name', 'is required (1-100 characters)');
  const name = value.trim();
  if (name.length > 100) throw invalid('name', `must be at most 100 characters (got ${name.length})`);
  return name;
}

function checkEvents(value: unknown): EventType[] {
  const names = EVENT_TYPE_NAMES.join(', ');
  if (!Array.isArray(value) || value.length === 0) throw invalid('events', `choose at least one event: ${names}`);
  const bad = value.find((e) => !isEventType(e));
  if (bad !== undefined) {
    throw invalid('events', `unknown event type ${JSON.stringify(bad)} (expected one of ${names})`);
  }
  // Keep the catalog's order and drop duplicates, so equal subscriptions look equal.
  return EVENT_TYPE_NAMES.filter((t) => value.includes(t));
}

function checkActive(value: unknown): boolean {
  if (typeof value !== 'boolean') throw invalid('active', 'must be true or false');
  return value;
}

/** null (or absent on create) is unlimited; otherwise a whole number of deliveries per second. */
function checkMaxPerSecond(value: unknown): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_PER_SECOND_LIMIT) {
    throw invalid('max_per_second', `must be a whole number from 1 to ${MAX_PER_SECOND_LIMIT}, or null for no limit `
      + `(got ${JSON.stringify(value) ?? String(value)})`);
  }
  return value;
}

function checkOrdering(value: unknown): WebhookOrdering {
  if (!ORDERINGS.includes(value as WebhookOrdering)) {
    throw invalid('ordering', `must be "none" or "record" (got ${JSON.stringify(value) ?? String(value)})`);
  }
  return value as WebhookOrdering;
}

async function checkUrl(core: Core, value: unknown): Promise<{ url: string; warning: string | null }> {
  if (typeof value !== 'string' || value.trim() === '') throw invalid('url', 'is required (an absolute https:// URL)');
  if (value.length > 2000) throw invalid('url', 'must be at most 2000 characters');
  // Private targets as the stored setting says now (another process may have changed it): its 400s name "url".
  return checkTargetUrl(value, { allowPrivateTargets: (await readPrivateTargets(core)).allowed });

}

// ---------- reading ----------

function view(row: WebhookRow, last: LastDelivery | null, now: number): WebhookView {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    events: JSON.parse(row.events) as EventType[],
    active: row.active === 1,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_delivery: last,
    warning: urlWarning(row.url),
    previous_secret_expires_at: previousSecretExpiry(row, now),
    max_per_second: row.max_per_second ?? null,
    ...filterView(row),
    ordering: row.ordering ?? 'none',
  };
}

async function findRow(db: Db, id: string): Promise<WebhookRow> {
  const row = await db.selectFrom('webhooks').selectAll().where('id', '=', id).where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw notFound(`Webhook ${id}`);
  return row;
}

async function lastDeliveries(db: Db, ids: string[]): Promise<Map<string, LastDelivery>> {
  const result = new Map<string, LastDelivery>();
  if (ids.length === 0) return result;
  // Delivery ids are time-sortable, so the greatest id per webhook is its newest delivery.
  const newest = db.selectFrom('deliveries').select((eb) => eb.fn.max('id').as('id'))
    .where('webhook_id', 'in', ids).groupBy('webhook_id');
  const rows = await db.selectFrom('deliveries').select(['id', 'webhook_id', 'status', 'last_status', 'created_at'])
    .where('id', 'in', newest).execute();
  for (const { webhook_id, ...last } of rows) result.set(webhook_id, last);
  return result;
}

export async function listWebhooks(core: Core): Promise<WebhookView[]> {
  const rows = await core.db.selectFrom('webhooks').selectAll().where('deleted_at', 'is', null)
    .orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
  const last = await lastDeliveries(core.db, rows.map((r) => r.id));
  const now = core.clock.now();
  return rows.map((r) => view(r, last.get(r.id) ?? null, now));
}

export async function getWebhook(core: Core, id: string): Promise<WebhookView> {
  const row = await findRow(core.db, id);
  const last = await lastDeliveries(core.db, [id]);
  return view(row, last.get(id) ?? null, core.clock.now());
}

// ---------- writing ----------

export async function createWebhook(core: Core, body: unknown): Promise<CreatedWebhook> {
  const input = checkBody(body);
  const name = checkName(input.name);
  const events = checkEvents(input.events);
  const active = input.active === undefined ? true : checkActive(input.active);
  const maxPerSecond = input.max_per_second === undefined ? null : checkMaxPerSecond(input.max_per_second);
  const ordering = input.ordering === undefined ? 'none' : checkOrdering(input.ordering);
  const { url, warning } = await checkUrl(core, input.url);
  const filter = await filterColumns(core, input.filter ?? null, events);
  const secret = generateSecret();
  const now = core.clock.now();
  const row: WebhookRow = {
    id: newId('wh', now),
    name,
    url,
    events: JSON.stringify(events),
    secret: sealSecret(core.config, secret),
    previous_secret: null,
    previous_secret_expires_at: null,
    active: active ? 1 : 0,
    max_per_second: maxPerSecond,
    ...filter,
    ordering,
    disabled_reason: null, // created inactive: nobody disabled it, and nothing was cancelled
    created_at: iso(now),
    updated_at: iso(now),
    deleted_at: null,
  };
  await core.db.insertInto('webhooks').values(row).execute();
  core.log.info({ webhookId: row.id, events }, 'webhook created');
  return { ...view(row, null, now), warning, secret };
}

/**
 * Changes any of name, url, events, active, max_per_second (null clears it), filter (null clears it), ordering
 * (deliveries already queued keep their place: a record's waiting ones are still sent after the one they wait for).
 * Re-enabling clears disabled_reason; disabling cancels what is pending.
 */
export async function updateWebhook(core: Core, id: string, body: unknown): Promise<WebhookView> {
  const input = checkBody(body);
  const changes: Partial<WebhookRow> = {};
  if (input.name !== undefined) changes.name = checkName(input.name);
  if (input.events !== undefined) changes.events = JSON.stringify(checkEvents(input.events));
  if (input.max_per_second !== undefined) changes.max_per_second = checkMaxPerSecond(input.max_per_second);
  if (input.ordering !== undefined) changes.ordering = checkOrdering(input.ordering);
  const active = input.active === undefined ? undefined : checkActive(input.active);
  let warning: string | null | undefined;
  if (input.url !== undefined) ({ url: changes.url, warning } = await checkUrl(core, input.url));
  if (input.filter !== undefined || changes.events !== undefined) {
    // A filter is checked against the event types it will see: the new ones, or the stored ones.
    const stored = await findRow(core.db, id);
    const events = JSON.parse(changes.events ?? stored.events) as EventType[];
    Object.assign(changes, await filterColumns(core, input.filter, events, stored.filter ?? null));
  }
  await core.db.transaction().execute(async (trx) => {
    const row = await findRow(trx, id);
    changes.updated_at = iso(core.clock.now());
    await trx.updateTable('webhooks').set(changes).where('id', '=', id).execute();
    // A new limit starts from now: slots reserved at the old rate must not hold the new one back.
    if (changes.max_per_second !== undefined && changes.max_per_second !== row.max_per_second) {
      await trx.deleteFrom('webhook_throttle').where('webhook_id', '=', id).execute();
    }
    if (active === true && row.active !== 1) {
      await trx.updateTable('webhooks').set({ active: 1, disabled_reason: null }).where('id', '=', id).execute();
      // A record's delivery that waits for one cancelled by the disabling is due again (delivery/order.ts).
      await releaseOrphans(trx, core.clock.now(), id);
      await closeOffPeriod(trx, core, id); // what happened meanwhile can be sent (recover/missed.ts)
    }
    if (active === false && row.active === 1) await disableWebhook(trx, core, id, DISABLED_BY_ADMIN);
  });
  const saved = await getWebhook(core, id);
  return warning === undefined ? saved : { ...saved, warning };
}

export const enableWebhook = (core: Core, id: string) => updateWebhook(core, id, { active: true });
export const disableWebhookByAdmin = (core: Core, id: string) => updateWebhook(core, id, { active: false });

/** Soft delete: the webhook stops firing, its pending deliveries are cancelled, and its history stays in the log. */
export async function deleteWebhook(core: Core, id: string): Promise<void> {
  await core.db.transaction().execute(async (trx) => {
    await findRow(trx, id);
    await cancelPending(trx, core, id, DELETED_REASON);
    const now = iso(core.clock.now());
    await trx.updateTable('webhooks').set({ active: 0, deleted_at: now, updated_at: now })
      .where('id', '=', id).execute();
  });
  core.log.info({ webhookId: id }, 'webhook deleted');
}

// ---------- the secret (admins only) ----------

export async function revealSecret(core: Core, id: string): Promise<{ secret: string }> {
  const row = await findRow(core.db, id);
  return { secret: openSecret(core.config, row.secret) };
}

/** "Regenerate now" (a leaked secret): a new secret, and the old one stops signing at once (rotation.ts). */
export async function regenerateSecret(core: Core, id: string): Promise<RotatedSecret> {
  return rotateSecret(core, id, 0);
}

/** The webhook row including deleted ones (the delivery log refers to them). */
export async function webhookRow(db: Db, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}
