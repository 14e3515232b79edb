// The one write path for host data (Host API, SDK and import all come here). Each call is one transaction that
// updates the read model and runs the write listeners (which record events and queue deliveries), so nothing is
// lost between "the booking changed" and "the webhook is queued". A PUT that changes nothing changes nothing.
import type { Kysely } from 'kysely';
import type { Core } from '../core.js';
import { badRequest, invalidParameter } from '../errors.js';
import { nextAssignedId } from '../store/dialect.js';
import type { Database } from '../store/tables.js';
import { iso, type StoredRecords } from '../records/normalize.js';
import { storedFor } from './draft.js';
import { presentOne } from '../records/present.js';
import { readStored, writeStored, deleteStored } from '../records/rows.js';
import {
  affectedApiResources,
  ASSIGNED_ID_MIN,
  type InputRecords,
  type PublicRecords,
  type Resource,
} from '../records/schemas.js';
import { hostIdProblem, validateInput } from '../records/validate.js';
import type { RecordChange } from './changes.js';
import { lockNames } from '../store/locks.js';
import { retryOnConflict, writeLockNames, writeTransaction } from './locks.js';
import { namedRecords, refuseDemoRecords } from './demo-guard.js';
import { tracing } from '../tracing/index.js';

type Db = Kysely<Database>;

export interface WriteOptions {
  /** false for bulk import: the read model is loaded without firing events. */
  events?: boolean;
}

export interface PutResult<R extends Resource> {
  created: boolean;
  changed: boolean;
  record: PublicRecords[R];
}

/** Validates and upserts one record. Throws a 400 AppError (nothing written) for invalid input. */
export async function putRecord<R extends Resource>(
  core: Core,
  resource: R,
  id: number,
  body: unknown,
  options: WriteOptions = {},
): Promise<PutResult<R>> {
  const traced = tracing();
  if (!traced) return put(core, resource, id, body, options);
  return traced.span('waypost.record.write', { attributes: recordAttributes('put', resource, id) }, async (span) => {
    const result = await put(core, resource, id, body, options);
    span.setAttributes({ 'waypost.record.created': result.created, 'waypost.record.changed': result.changed });
    return result;
  });
}

/** A write span's record: which one, and how (tracing on). */
const recordAttributes = (op: 'put' | 'delete', resource: Resource, id: number) =>
  ({ 'waypost.record.operation': op, 'waypost.resource': resource, 'waypost.record.id': id });

async function put<R extends Resource>(
  core: Core, resource: R, id: number, body: unknown, options: WriteOptions,
): Promise<PutResult<R>> {
  const idProblem = hostIdProblem(id);
  if (idProblem) throw invalidParameter('id', idProblem);
  const input = validateInput(resource, body, id);
  const { done: { result, changes }, cutOff } = await writeTransaction(core.db, async (trx) => {
    await lockNames(trx, writeLockNames(resource, id, input));
    await refuseDemoRecords(trx, namedRecords(resource, id, input));
    const changes: RecordChange[] = [];
    const result = await upsert(trx, core, resource, id, input, changes);
    await notifyListeners(trx, core, changes, options);
    return { result, changes };
  });
  announce(core, [...(cutOff?.changes ?? []), ...changes]);
  // The attempt whose COMMIT was cut off wrote this very content if the retry found nothing to change: the host
  // gets the answer that attempt would have given (201 for a new record), not a 200 caused by our own retry.
  if (cutOff && !result.changed) return { ...result, created: cutOff.result.created, changed: cutOff.result.changed };
  return result;
}

/** Removes one record. Returns false if it did not exist. Deletions fire no event. */
export async function deleteRecord(
  core: Core,
  resource: Resource,
  id: number,
  options: WriteOptions = {},
): Promise<boolean> {
  const traced = tracing();
  if (!traced) return remove(core, resource, id, options);
  return traced.span('waypost.record.write', { attributes: recordAttributes('delete', resource, id) }, async (span) => {
    const removed = await remove(core, resource, id, options);
    span.setAttributes({ 'waypost.record.changed': removed });
    return removed;
  });
}

async function remove(core: Core, resource: Resource, id: number, options: WriteOptions): Promise<boolean> {
  const { done: changes, cutOff } = await writeTransaction(core.db, async (trx) => {
    await lockNames(trx, writeLockNames(resource, id, null));
    await refuseDemoRecords(trx, namedRecords(resource, id, null));
    const previous = await readStored(trx, resource, id);
    if (!previous) return [];
    // A payment's booking shows its payment_ids: hold the booking too, so its writers see a consistent before.
    if (resource === 'payments') {
      await lockNames(trx, [`bookings:${(previous as StoredRecords['payments']).booking_id}`]);
    }
    const before = await presentOne(trx, resource, previous);
    await deleteStored(trx, resource, previous);
    const changes: RecordChange[] = [{ resource, id, before, after: null, at: core.clock.now() }];
    await notifyListeners(trx, core, changes, options);
    return changes;
  });
  announce(core, [...(cutOff ?? []), ...changes]);
  // Found by the attempt whose COMMIT was cut off and gone now: that attempt removed it (a 204, not a 404).
  return changes.length > 0 || (cutOff?.length ?? 0) > 0;
}

export interface PutManyOptions extends WriteOptions {
  /** Called with each item's outcome, in order (the importer's summary counts new/changed/unchanged lines). */
  onItem?: (result: { created: boolean; changed: boolean }, index: number) => void;
  /** Runs last inside the same transaction (the importer records how far it got, atomically with the batch). */
  inTransaction?: (trx: Db) => Promise<void>;
}

/** Upserts many validated records in one transaction (the importer's batches). Returns how many changed. */
export async function putMany(
  core: Core,
  items: Array<{ resource: Resource; id: number; input: InputRecords[Resource] }>,
  options: PutManyOptions = {},
): Promise<number> {
  const changes = await retryOnConflict(() => core.db.transaction().execute(async (trx) => {
    await lockNames(trx, items.flatMap((item) => writeLockNames(item.resource, item.id, item.input)));
    const changes: RecordChange[] = [];
    for (const [index, item] of items.entries()) {
      const { created, changed } = await upsert(trx, core, item.resource, item.id, item.input, changes);
      options.onItem?.({ created, changed }, index);
    }
    await notifyListeners(trx, core, changes, options);
    await options.inTransaction?.(trx);
    return changes;
  }));
  announce(core, changes);
  return changes.length;
}

async function notifyListeners(trx: Db, core: Core, changes: RecordChange[], options: WriteOptions): Promise<void> {
  if (options.events === false) return;
  for (const change of changes) for (const listener of core.writeListeners) await listener(trx, change, core);
}

function announce(core: Core, changes: RecordChange[]): void {
  if (changes.length === 0) return;
  const resources = [...new Set(changes.map((c) => c.resource))];
  core.bus.emit('records.changed', [...new Set([...resources, ...affectedApiResources(resources)])]);
}

async function upsert<R extends Resource>(
  trx: Db,
  core: Core,
  resource: R,
  id: number,
  input: InputRecords[R],
  changes: RecordChange[],
): Promise<PutResult<R>> {
  const previous = await readStored(trx, resource, id);
  if (resource === 'payments' && previous) {
    // A payment moved to another booking: the booking it leaves changes as well.
    const from = (previous as StoredRecords['payments']).booking_id;
    if (from !== (input as InputRecords['payments']).booking_id) await lockNames(trx, [`bookings:${from}`]);
  }
  const at = core.clock.now();
  const now = iso(at);
  const customerId = resource === 'bookings' && (input as InputRecords['bookings']).customer
    ? await resolveEmbeddedCustomer(trx, core, (input as InputRecords['bookings']).customer!, changes)
    : null;
  const { next, changed } = storedFor(resource, id, input, previous, now, customerId);
  const before = previous ? await presentOne(trx, resource, previous) : null;
  if (changed) await writeStored(trx, resource, next, previous);
  const record = changed ? await presentOne(trx, resource, next) : (before as PublicRecords[R]);
  if (changed) changes.push({ resource, id, before, after: record, at });
  return { created: previous === null, changed, record };
}

/**
 * A booking's embedded customer: by id when given (created if unknown), else by e-mail (case-insensitive), else a
 * new customer with an id from Waypost's own range (never one the host can PUT). A new one is a change of its own
 * (customer.created). An id from Waypost's range must name a customer Waypost made (a host writing back what it
 * read); it is never created under that id.
 */
async function resolveEmbeddedCustomer(
  trx: Db,
  core: Core,
  c: NonNullable<InputRecords['bookings']['customer']>,
  changes: RecordChange[],
): Promise<number> {
  const fields = { email: c.email, first_name: c.first_name, last_name: c.last_name, phone: c.phone };
  if (c.id !== undefined) {
    const existing = await trx.selectFrom('customers').select('id').where('id', '=', c.id).executeTakeFirst();
    if (existing) return c.id;
    const problem = hostIdProblem(c.id);
    if (problem) {
      throw badRequest('invalid_field', `customer.id ${problem}, or name a customer that exists`, {
        field: 'customer.id',
      });
    }
    await upsert(trx, core, 'customers', c.id, fields, changes);
    return c.id;
  }
  const byEmail = await trx.selectFrom('customers').select('id')
    .where('email', '=', c.email.toLowerCase()).orderBy('id').limit(1).executeTakeFirst();
  if (byEmail) {
    await refuseDemoRecords(trx, [['customers', byEmail.id]]); // a demo customer's e-mail is no site's customer
    return byEmail.id;
  }
  const id = await nextAssignedId(trx, ASSIGNED_ID_MIN);
  await upsert(trx, core, 'customers', id, fields, changes);
  return id;
}
