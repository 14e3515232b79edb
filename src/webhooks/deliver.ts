// One delivery attempt as a chain of small steps (STYLE.md, after Svix): prepare → send → success | failure;
// a failure records the attempt and either schedules the next one from config.retryDelaysMs or ends exhausted
// (the webhook is auto-disabled). Failure e-mails go out after commit.
import type { CompiledQuery, Kysely } from 'kysely';

import type { Core } from '../core.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Database } from '../store/tables.js';
import { listValues, slot, slots, step, withValues } from '../store/prepared.js';
import type { WriteStep } from '../store/sqlite-writer.js';
import { readRows } from '../store/read.js';
import type { DeliveryAttemptRow, DeliveryRow, DeliveryStatus, EventRow, WebhookRow } from './tables.js';
import { openSecret } from './secrets.js';
import { signPayload, signStandard } from './sign.js';
import { sendWebhook, type SendResult } from './send.js';
import { disableWebhook } from './disable.js';
import { sendFailureAlert, type AlertLevel } from '../alerts/index.js';

type Db = Kysely<Database>;

export interface AttemptResult {
  deliveryId: string;
  /** The number of the attempt made (1-based); 0 when none was made (cancelled, already final). */
  attempt: number;
  /** The delivery's status afterwards: succeeded, pending (a retry is scheduled), failed (exhausted) or cancelled. */
  status: DeliveryStatus;
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  durationMs: number;
  error: string | null;
  /** When the next attempt is due (ISO), if one is scheduled. */
  nextAttemptAt: string | null;
  cancelReason: string | null;
}

export interface AttemptOptions {
  /** The worker that holds the delivery's lease; without it, attemptDelivery takes the lease itself. */
  owner?: string;
  /** Aborts the send (graceful shutdown): no attempt is recorded and the lease is released. */
  signal?: AbortSignal;
  /** The rows the attempt needs, when the caller loaded them already (the worker loads each claimed batch at once). */
  loaded?: LoadedDelivery;
  /** Where successes are recorded; the worker groups them into one transaction per batch. */
  successes?: SuccessSink;
}

/**
 * Records a successful attempt and marks its delivery succeeded: at once, in one transaction (a promise to await), or
 * queued into the worker's next batch (nothing to await: the delivery keeps its lease until the batch is written).
 */
export interface SuccessSink {
  record(attempt: DeliveryAttemptRow, now: string): Promise<void> | void;
}

export interface LoadedDelivery {
  delivery: DeliveryRow;
  webhook: WebhookRow | undefined;
  event: EventRow | undefined;
}

interface Prepared {
  delivery: DeliveryRow;
  webhook: WebhookRow;
  event: EventRow;
  attempt: number;
}

/** Performs one attempt now and applies its outcome. Used by the worker and by "Send test". */
export async function attemptDelivery(core: Core, deliveryId: string, options: AttemptOptions = {}): Promise<AttemptResult> {
  const manual = options.owner === undefined;
  const owner = options.owner ?? newId('man', core.clock.now());
  if (manual && !(await takeLease(core, deliveryId, owner))) return waitForHolder(core, deliveryId);

  const loaded = options.loaded ?? (await loadDeliveries(core, [deliveryId])).get(deliveryId);
  if (!loaded) throw new Error(`delivery ${deliveryId} does not exist`);
  const prepared = prepare(loaded, manual);
  if (typeof prepared === 'string') return cancel(core, loaded.delivery, prepared);
  if (!('webhook' in prepared)) return prepared;

  let request: { url: string; headers: Record<string, string>; body: string };
  try {
    // Without a payload filter the request is built synchronously (the worker's usual case: no await).
    request = signedRequest(core, prepared, core.filters.webhookPayload ? await filteredBody(core, prepared) : plainBody(prepared));
  } catch (err) {
    // The secret cannot be opened (WAYPOST_SECRET_KEY missing or different): nothing is sent, and the attempt
    // fails like any other, so it shows in the log, follows the retry schedule and alerts.
    if (!(err instanceof AppError) || !err.code.startsWith('secret_key_')) throw err;
    const failed: SendResult = { status: null, headers: null, body: null, durationMs: 0, error: `not sent: ${err.message}` };
    return recordOutcome(core, prepared, { url: prepared.webhook.url, headers: {}, body: '' }, failed, options.successes ?? singleSuccess(core));
  }
  const { url, headers, body } = request;
  const sent = await sendWebhook(core.config, url, headers, body, { signal: options.signal });
  if (options.signal?.aborted) {
    await releaseLease(core.db, deliveryId, owner);
    return { ...summary(prepared.delivery, 0), error: 'aborted: the worker is shutting down' };
  }
  return recordOutcome(core, prepared, { url, headers, body }, sent, options.successes ?? singleSuccess(core));
}

// ---------- prepare ----------

/** Loads deliveries with their webhooks and events: three queries for any number of deliveries (prepared on SQLite). */
export async function loadDeliveries(core: Core, ids: string[]): Promise<Map<string, LoadedDelivery>> {
  if (ids.length === 0) return new Map();
  return withWebhooksAndEvents(core, await readRows<DeliveryRow>(core, core.db.selectFrom('deliveries').selectAll().where('id', 'in', ids).compile()));
}

/** Adds their webhooks and events to delivery rows already read (a claim returns them): two queries. */
export async function withWebhooksAndEvents(core: Core, deliveries: DeliveryRow[]): Promise<Map<string, LoadedDelivery>> {
  if (deliveries.length === 0) return new Map();
  const webhookIds = [...new Set(deliveries.map((d) => d.webhook_id))];
  const eventIds = [...new Set(deliveries.map((d) => d.event_id))];
  const webhooks = await readRows<WebhookRow>(core, byIds(core, 'webhooks', webhookIds));
  const events = await readRows<EventRow>(core, byIds(core, 'events', eventIds));
  return joinLoaded(deliveries, webhooks, events);
}

/** Each delivery with its webhook and event, from rows read together. */
export function joinLoaded(deliveries: DeliveryRow[], webhookRows: WebhookRow[], eventRows: EventRow[]): Map<string, LoadedDelivery> {
  const webhooks = new Map(webhookRows.map((w) => [w.id, w]));
  const events = new Map(eventRows.map((e) => [e.id, e]));
  const out = new Map<string, LoadedDelivery>();
  for (const d of deliveries) out.set(d.id, { delivery: d, webhook: webhooks.get(d.webhook_id), event: events.get(d.event_id) });
  return out;
}

const byIdQueries = new WeakMap<Core, Map<string, (values: Record<string, unknown>) => CompiledQuery>>();

/** `select * from <table> where id in (…)`, compiled once per table and list length (the worker runs it per claim). */
function byIds(core: Core, table: 'webhooks' | 'events', ids: string[]): CompiledQuery {
  let cache = byIdQueries.get(core);
  if (!cache) byIdQueries.set(core, cache = new Map());
  const key = `${table}:${ids.length}`;
  let query = cache.get(key);
  if (!query) cache.set(key, query = withValues(core.db.selectFrom(table).selectAll().where('id', 'in', slots('id', ids.length)).compile()));
  return query(listValues('id', ids));
}

/** What to send, the summary of a delivery that is final already, or why to cancel it (a string). */
function prepare({ delivery, webhook, event }: LoadedDelivery, manual: boolean): Prepared | AttemptResult | string {
  if (delivery.status !== 'pending') return summary(delivery, 0);
  // The webhook may have been deleted or disabled since the delivery was queued: cancel instead of sending. An
  // explicit attempt, and an admin's "Send test" sample (whoever picks it up), may still reach a disabled webhook.
  const reason = !webhook || webhook.deleted_at !== null ? 'webhook deleted'
    : !event ? 'event no longer exists'
    : webhook.active !== 1 && !manual && event.test !== 1 ? `webhook disabled${webhook.disabled_reason ? `: ${webhook.disabled_reason}` : ''}`
    : null;
  if (reason !== null) return reason;
  return { delivery, webhook: webhook!, event: event!, attempt: Number(delivery.attempts) + 1 };
}

async function cancel(core: Core, delivery: DeliveryRow, reason: string): Promise<AttemptResult> {
  const now = new Date(core.clock.now()).toISOString();
  await core.db.updateTable('deliveries')
    .set({ status: 'cancelled', cancel_reason: reason, next_attempt_at: null, lease_owner: null, lease_until: null, updated_at: now, completed_at: now })
    .where('id', '=', delivery.id).where('status', '=', 'pending')
    .execute();
  return { ...summary(delivery, 0), status: 'cancelled', cancelReason: reason };
}

/** The envelope as sent: event.data is already the record's JSON, so it is spliced in rather than parsed and serialised again. */
function plainBody(p: Prepared): string {
  return `{"id":${JSON.stringify(p.event.id)},"type":${JSON.stringify(p.event.type)},"created_at":${JSON.stringify(p.event.created_at)},"data":${p.event.data}}`;
}

/** The envelope passed through filters.webhookPayload, serialised once. */
async function filteredBody(core: Core, p: Prepared): Promise<string> {
  const payload = { id: p.event.id, type: p.event.type, created_at: p.event.created_at, data: JSON.parse(p.event.data) as unknown };
  return JSON.stringify(await core.filters.webhookPayload!(payload, { webhookId: p.webhook.id, eventType: p.event.type, deliveryId: p.delivery.id }));
}

interface HeaderNames {
  userAgent: string;
  signature: string;
  event: string;
  delivery: string;
  webhookId: string;
  attempt: string;
}

const headerNamesByConfig = new WeakMap<Core['config'], HeaderNames>();

/** The `X-Waypost-…` header names and the User-Agent for the configured service name (made once, used per request). */
function headerNames(config: Core['config']): HeaderNames {
  let names = headerNamesByConfig.get(config);
  if (!names) {
    const x = `X-${config.serviceName}`;
    names = { userAgent: `${config.serviceName}-Hookshot/${config.version}`, signature: `${x}-Signature`, event: `${x}-Event`, delivery: `${x}-Delivery`, webhookId: `${x}-Webhook-Id`, attempt: `${x}-Attempt` };
    headerNamesByConfig.set(config, names);
  }
  return names;
}

/** The request for a body: the headers, with both signatures over those exact bytes. */
function signedRequest(core: Core, p: Prepared, body: string): { url: string; headers: Record<string, string>; body: string } {
  const secret = openSecret(core.config, p.webhook.secret);
  const timestamp = Math.floor(core.clock.now() / 1000);
  const names = headerNames(core.config);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': names.userAgent,
    [names.signature]: signPayload(secret, body),
    [names.event]: p.event.type,
    [names.delivery]: p.delivery.id,
    [names.webhookId]: p.webhook.id,
    [names.attempt]: String(p.attempt),
    'webhook-id': p.delivery.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signStandard(secret, p.delivery.id, timestamp, body),
  };
  return { url: p.webhook.url, headers, body };
}

// ---------- success | failure → schedule | exhausted ----------

interface Decision {
  status: DeliveryStatus;
  nextAttemptAt: number | null;
  alert: AlertLevel | null;
}

/** What a failed attempt leads to: the next attempt after config.retryDelaysMs[attempt-1], or exhausted. */
export function onFailure(core: Core, attempt: number, test: boolean): Decision {
  const delays = core.config.retryDelaysMs;
  const total = delays.length + 1;
  if (test) return { status: 'failed', nextAttemptAt: null, alert: null }; // a "Send test" sample is tried once
  if (attempt >= total) return { status: 'failed', nextAttemptAt: null, alert: 'critical' };
  const next = core.clock.now() + delays[attempt - 1];
  return { status: 'pending', nextAttemptAt: next, alert: attempt >= total - 2 ? 'warning' : null };
}

async function recordOutcome(core: Core, p: Prepared, request: { url: string; headers: Record<string, string>; body: string }, sent: SendResult, successes: SuccessSink): Promise<AttemptResult> {
  const success = sent.status === 200;
  const error = success ? null : (sent.error ?? `HTTP ${sent.status}: expected 200`);
  const nowMs = core.clock.now();
  const now = new Date(nowMs).toISOString();
  const decision: Decision = success ? { status: 'succeeded', nextAttemptAt: null, alert: null } : onFailure(core, p.attempt, p.event.test === 1);
  const attemptRow: DeliveryAttemptRow = {
    id: newId('att', nowMs),
    delivery_id: p.delivery.id,
    attempt: p.attempt,
    started_at: new Date(nowMs - sent.durationMs).toISOString(),
    duration_ms: sent.durationMs,
    request_url: request.url,
    request_headers: JSON.stringify(request.headers),
    request_body: request.body,
    response_status: sent.status,
    response_headers: sent.headers ? JSON.stringify(sent.headers) : null,
    response_body: sent.body,
    error,
    success: success ? 1 : 0,
  };
  // Made whole in one literal (an object spread here cost about 3 µs a delivery in the worker's profile).
  const result = (status: DeliveryStatus, nextAttemptAt: string | null, cancelReason: string | null): AttemptResult => ({
    deliveryId: p.delivery.id,
    attempt: p.attempt,
    status,
    responseStatus: sent.status,
    responseHeaders: sent.headers,
    responseBody: sent.body,
    durationMs: sent.durationMs,
    error,
    nextAttemptAt,
    cancelReason,
  });
  if (success) {
    const written = successes.record(attemptRow, now);
    if (written) await written;
    return result('succeeded', null, null);
  }

  const final = await core.db.transaction().execute(async (trx) => {
    const current = await lockDelivery(trx, core, p.delivery.id);
    await trx.insertInto('delivery_attempts').values(attemptRow).execute();
    // Cancelled while in flight (webhook disabled): the failure does not revive it.
    const status: DeliveryStatus = current?.status === 'cancelled' ? 'cancelled' : decision.status;
    const finished = status !== 'pending';
    await trx.updateTable('deliveries').set({
      status,
      attempts: p.attempt,
      next_attempt_at: finished ? null : decision.nextAttemptAt,
      lease_owner: null,
      lease_until: null,
      last_status: sent.status,
      last_error: error,
      updated_at: now,
      completed_at: finished ? (current?.completed_at ?? now) : null,
    }).where('id', '=', p.delivery.id).execute();
    if (status === 'failed' && decision.alert === 'critical') {
      await disableWebhook(trx, core, p.webhook.id, `${p.attempt} consecutive failed attempts for delivery ${p.delivery.id} (last error: ${truncate(error ?? '', 200)})`);
    }
    return { status, cancelReason: current?.cancel_reason ?? null };
  });

  const nextAttemptAt = final.status === 'pending' && decision.nextAttemptAt !== null ? new Date(decision.nextAttemptAt).toISOString() : null;
  if (decision.alert && final.status !== 'cancelled') {
    await sendFailureAlert(core, { level: decision.alert, webhook: p.webhook, deliveryId: p.delivery.id, eventId: p.event.id, eventType: p.event.type, attempt: p.attempt, totalAttempts: core.config.retryDelaysMs.length + 1, error: error ?? '', nextAttemptAt })
      .catch((err) => core.log.error({ err, delivery: p.delivery.id }, 'could not record the failure alert'));
  }
  return result(final.status, nextAttemptAt, final.status === 'cancelled' ? final.cancelReason : null);
}

async function lockDelivery(trx: Db, core: Core, id: string): Promise<DeliveryRow | undefined> {
  const q = trx.selectFrom('deliveries').selectAll().where('id', '=', id);
  return (core.store.dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
}

/**
 * Marks deliveries succeeded with their attempt rows, in one transaction. A success counts even if the delivery
 * was cancelled while in flight: the receiver has it.
 */
export async function recordSuccesses(core: Core, items: SuccessItem[]): Promise<void> {
  if (items.length === 0) return;
  const now = items[items.length - 1].now;
  const { writer } = core.store;
  if (writer) {
    await writer.transaction(successSteps(core)(items, now));
    return;
  }
  await core.db.transaction().execute(async (trx) => {
    await trx.insertInto('delivery_attempts').values(items.map((i) => i.attempt)).execute();
    await markSucceeded(trx, now, items.map((i) => i.attempt.delivery_id)).execute();
  });
}

export interface SuccessItem {
  attempt: DeliveryAttemptRow;
  now: string;
}

/** The delivery update of a success. The attempt row carries its number; the delivery had made one fewer (the lease kept others away). */
function markSucceeded(db: Db, now: string, ids: string[]) {
  return db.updateTable('deliveries').set((eb) => ({
    status: 'succeeded',
    attempts: eb('attempts', '+', 1),
    next_attempt_at: null,
    lease_owner: null,
    lease_until: null,
    last_status: 200,
    last_error: null,
    cancel_reason: null,
    updated_at: now,
    completed_at: now,
  })).where('id', 'in', ids);
}

const ATTEMPT_COLUMNS = ['id', 'delivery_id', 'attempt', 'started_at', 'duration_ms', 'request_url', 'request_headers', 'request_body', 'response_status', 'response_headers', 'response_body', 'error', 'success'] as const satisfies ReadonlyArray<keyof DeliveryAttemptRow>;
const successStepMakers = new WeakMap<Core, (items: SuccessItem[], now: string) => WriteStep[]>();

/** On the SQLite writer thread: the two statements of a success, built by Kysely once, run per item in one transaction. */
function successSteps(core: Core): (items: SuccessItem[], now: string) => WriteStep[] {
  let make = successStepMakers.get(core);
  if (!make) {
    const row = Object.fromEntries(ATTEMPT_COLUMNS.map((c) => [c, slot(c)])) as unknown as DeliveryAttemptRow;
    const insert = withValues(core.db.insertInto('delivery_attempts').values(row).compile());
    const update = withValues(markSucceeded(core.db, slot('now'), [slot('id')]).compile());
    make = (items, now) => items.flatMap(({ attempt }) => [
      step(insert(attempt as unknown as Record<string, unknown>)),
      step(update({ now, id: attempt.delivery_id })),
    ]);
    successStepMakers.set(core, make);
  }
  return make;
}

function singleSuccess(core: Core): SuccessSink {
  return { record: (attempt, now) => recordSuccesses(core, [{ attempt, now }]) };
}

// ---------- leases for explicit attempts ----------

/** Takes the lease of a pending delivery; false when a worker holds it. A final delivery needs no lease. */
async function takeLease(core: Core, deliveryId: string, owner: string): Promise<boolean> {
  const now = core.clock.now();
  const res = await core.db.updateTable('deliveries')
    .set({ lease_owner: owner, lease_until: now + core.config.leaseMs })
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) > 0) return true;
  const row = await core.db.selectFrom('deliveries').select('status').where('id', '=', deliveryId).executeTakeFirst();
  if (!row) throw new Error(`delivery ${deliveryId} does not exist`);
  return row.status !== 'pending';
}

export async function releaseLease(db: Db, deliveryId: string, owner: string): Promise<void> {
  await db.updateTable('deliveries').set({ lease_owner: null, lease_until: null })
    .where('id', '=', deliveryId).where('lease_owner', '=', owner).execute();
}

/** A worker holds the delivery right now: wait for its attempt and answer with that. */
async function waitForHolder(core: Core, deliveryId: string): Promise<AttemptResult> {
  const before = await core.db.selectFrom('deliveries').selectAll().where('id', '=', deliveryId).executeTakeFirstOrThrow();
  const deadline = Date.now() + core.config.deliveryTimeoutMs + 5_000;
  let current = before;
  while (Date.now() < deadline && current.status === 'pending' && current.attempts === before.attempts && current.lease_owner !== null) {
    await new Promise((r) => setTimeout(r, 50));
    current = await core.db.selectFrom('deliveries').selectAll().where('id', '=', deliveryId).executeTakeFirstOrThrow();
  }
  const last = await core.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('attempt', 'desc').limit(1).executeTakeFirst();
  return { ...summary(current, last?.attempt ?? 0), ...(last ? fromAttemptRow(last) : {}) };
}

function fromAttemptRow(a: DeliveryAttemptRow): Partial<AttemptResult> {
  return {
    responseStatus: a.response_status,
    responseHeaders: a.response_headers ? JSON.parse(a.response_headers) : null,
    responseBody: a.response_body,
    durationMs: a.duration_ms,
    error: a.error,
  };
}

function summary(d: DeliveryRow, attempt: number): AttemptResult {
  return {
    deliveryId: d.id,
    attempt,
    status: d.status,
    responseStatus: d.last_status,
    responseHeaders: null,
    responseBody: null,
    durationMs: 0,
    error: d.last_error,
    nextAttemptAt: d.next_attempt_at !== null && d.status === 'pending' ? new Date(Number(d.next_attempt_at)).toISOString() : null,
    cancelReason: d.cancel_reason,
  };
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

