// Webhook management (DESIGN.md "Webhooks"): create, update, enable, disable, delete, reveal and rotate the secret.
// The admin JSON API and the CLI both call these functions. Saving never loses history: deliveries and attempts
// are kept, and delete is a soft delete.
import type { Kysely } from 'kysely';
import { changedFields, recordAudit, type Actor, type AuditAction, type AuditDetails } from '../audit/record.js';
import type { Core } from '../core.js';
import { notFound } from '../errors.js';
import { newId } from '../ids.js';
import { iso } from '../records/normalize.js';
import type { Database } from '../store/tables.js';
import type { EventType } from './catalog.js';
import { cancelPending, disableWebhook } from './disable.js';
import { filterColumns, filterView, type FilterView } from './filters/save.js';
import { previousSecretExpiry, rotateSecret, type RotatedSecret } from './rotation.js';
import { generateSecret, openSecret, sealSecret } from './secrets.js';
import { urlWarning } from './ssrf.js';
import type { DeliveryStatus, WebhookOrdering, WebhookPayload, WebhookRow } from './tables.js';
import {
  checkActive, checkBody, checkEvents, checkMaxPerSecond, checkName, checkOrdering, checkPayload, checkUrl,
  WEBHOOK_FIELDS, type WebhookInput,
} from './validate.js';
import { releaseOrphans } from './delivery/order.js';
import { closeOffPeriod } from './off-periods.js';

type Db = Kysely<Database>;

export const DISABLED_BY_ADMIN = 'Disabled by an admin.';
export const DELETED_REASON = 'The webhook was deleted.';

/**
 * Records what an actor did to a webhook in the write's own transaction (src/audit/): the change and its entry commit
 * together or not at all. Without an actor (tests, benchmarks, the demo's seed) nothing is recorded.
 */
async function audit(
  db: Db, core: Core, actor: Actor | undefined, action: AuditAction, id: string, details: AuditDetails | null = null,
): Promise<void> {
  await recordAudit(core, actor, { action, targetType: 'webhook', targetId: id, details }, db);
}

/** A change that only switches `active` is an enable or a disable, as the console's switch sends it. */
function changeAction(input: WebhookInput): { action: AuditAction; details: AuditDetails | null } {
  const fields = changedFields(input, WEBHOOK_FIELDS);
  if (fields.length === 1 && fields[0] === 'active') {
    return { action: input.active ? 'webhook.enabled' : 'webhook.disabled', details: null };
  }
  return { action: 'webhook.updated', details: { fields } };
}

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
  /** 'minimal': `data` holds the record's ids and API link, no personal field (docs/webhooks.md "Minimal payloads"). */
  payload: WebhookPayload;
}

export interface CreatedWebhook extends WebhookView {
  secret: string;
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
    ordering: row.ordering ?? 'none', payload: row.payload ?? 'full',
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

export async function createWebhook(core: Core, body: unknown, actor?: Actor): Promise<CreatedWebhook> {
  const input = checkBody(body);
  const name = checkName(input.name);
  const events = checkEvents(input.events);
  const active = input.active === undefined ? true : checkActive(input.active);
  const maxPerSecond = input.max_per_second === undefined ? null : checkMaxPerSecond(input.max_per_second);
  const ordering = input.ordering === undefined ? 'none' : checkOrdering(input.ordering);
  const payload = input.payload === undefined ? 'full' : checkPayload(input.payload);
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
    ordering, payload,
    disabled_reason: null, // created inactive: nobody disabled it, and nothing was cancelled
    created_at: iso(now),
    updated_at: iso(now),
    deleted_at: null,
  };
  await core.db.transaction().execute(async (trx) => {
    await trx.insertInto('webhooks').values(row).execute();
    await audit(trx, core, actor, 'webhook.created', row.id, { name });
  });
  core.log.info({ webhookId: row.id, events }, 'webhook created');
  return { ...view(row, null, now), warning, secret };
}

/**
 * Changes any of name, url, events, active, max_per_second (null clears it), filter (null clears it), payload (from the
 * next attempt on, retries included), ordering
 * (deliveries already queued keep their place: a record's waiting ones are still sent after the one they wait for).
 * Re-enabling clears disabled_reason; disabling cancels what is pending.
 */
export async function updateWebhook(core: Core, id: string, body: unknown, actor?: Actor): Promise<WebhookView> {
  const input = checkBody(body);
  const changes: Partial<WebhookRow> = {};
  if (input.name !== undefined) changes.name = checkName(input.name);
  if (input.events !== undefined) changes.events = JSON.stringify(checkEvents(input.events));
  if (input.max_per_second !== undefined) changes.max_per_second = checkMaxPerSecond(input.max_per_second);
  if (input.ordering !== undefined) changes.ordering = checkOrdering(input.ordering);
  if (input.payload !== undefined) changes.payload = checkPayload(input.payload);
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
    const { action, details } = changeAction(input);
    await audit(trx, core, actor, action, id, details);
  });
  const saved = await getWebhook(core, id);
  return warning === undefined ? saved : { ...saved, warning };
}

export const enableWebhook = (core: Core, id: string, actor?: Actor) =>
  updateWebhook(core, id, { active: true }, actor);
export const disableWebhookByAdmin = (core: Core, id: string, actor?: Actor) =>
  updateWebhook(core, id, { active: false }, actor);

/** Soft delete: the webhook stops firing, its pending deliveries are cancelled, and its history stays in the log. */
export async function deleteWebhook(core: Core, id: string, actor?: Actor): Promise<void> {
  await core.db.transaction().execute(async (trx) => {
    await findRow(trx, id);
    await cancelPending(trx, core, id, DELETED_REASON);
    const now = iso(core.clock.now());
    await trx.updateTable('webhooks').set({ active: 0, deleted_at: now, updated_at: now })
      .where('id', '=', id).execute();
    await audit(trx, core, actor, 'webhook.deleted', id);
  });
  core.log.info({ webhookId: id }, 'webhook deleted');
}

// ---------- the secret (admins only) ----------

export async function revealSecret(core: Core, id: string): Promise<{ secret: string }> {
  const row = await findRow(core.db, id);
  return { secret: openSecret(core.config, row.secret) };
}

/** "Regenerate now" (a leaked secret): a new secret, and the old one stops signing at once (rotation.ts). */
export async function regenerateSecret(core: Core, id: string, actor?: Actor): Promise<RotatedSecret> {
  return rotateSecret(core, id, 0, actor);
}

/** The webhook row including deleted ones (the delivery log refers to them). */
export async function webhookRow(db: Db, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}
