// POST /host/v1/batch: many PUTs and DELETEs in one request, for the WordPress bridge's backfill. Each operation
// is exactly the single write (its own transaction through src/host/write.ts), run in order: the events it fires,
// its validation and its answer are the same, and one bad operation gets its own 4xx (or, if its data meets a fault of
// ours, its own 500) without stopping the others; only a lost database fails the whole request.
// A batch is therefore not atomic; every operation is idempotent (a PUT repeats to a no-op, a DELETE to a 404), so
// a client that lost the answer sends the same batch again.
import type { Core } from '../core.js';
import { AppError, badRequest, isConnectionError } from '../errors.js';
import { RESOURCES, type Resource } from '../records/schemas.js';
import { hostIdProblem, isResource } from '../records/validate.js';
import { deleteRecord, putRecord } from './write.js';

export const BATCH_MAX_OPERATIONS = 500;

export interface BatchOperation {
  op: 'put' | 'delete';
  resource: string;
  id: number | string;
  data?: unknown;
}

export interface BatchResult {
  index: number;
  status: 200 | 201 | 204 | 400 | 404 | 409 | 500;
  created?: boolean;
  changed?: boolean;
  error?: { code: string; detail: string; [extra: string]: unknown };
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Checks the envelope; a body that is not `{operations: [...]}` of at most 500 is refused whole. */
export function batchOperations(body: unknown): unknown[] {
  if (!isObject(body)) {
    throw badRequest('invalid_body', 'the body must be a JSON object {"operations": [...]}', { field: '(body)' });
  }
  for (const key of Object.keys(body)) {
    if (key !== 'operations') throw badRequest('invalid_field', `${key} is not a known field`, { field: key });
  }
  const { operations } = body;
  if (!Array.isArray(operations)) {
    const detail = 'operations must be an array of {op, resource, id, data?}';
    throw badRequest('invalid_field', detail, { field: 'operations' });
  }
  if (operations.length > BATCH_MAX_OPERATIONS) {
    throw badRequest('batch_too_large', `operations must hold at most ${BATCH_MAX_OPERATIONS} items `
      + `(got ${operations.length}): split the batch`, { field: 'operations' });
  }
  return operations;
}

/** An item's own 400, its message naming the field inside the operation (`data.total_amount`, `resource`). */
const itemError = (field: string, detail: string) =>
  badRequest('invalid_operation', `${field} ${detail}`, { field });

function parseOperation(raw: unknown): { op: 'put' | 'delete'; resource: Resource; id: number; data: unknown } {
  if (!isObject(raw)) throw itemError('(operation)', 'must be an object {op, resource, id, data?}');
  for (const key of Object.keys(raw)) {
    if (!['op', 'resource', 'id', 'data'].includes(key)) throw itemError(key, 'is not a known field');
  }
  const { op, resource, id, data } = raw;
  if (op !== 'put' && op !== 'delete') throw itemError('op', 'must be "put" or "delete"');
  if (typeof resource !== 'string' || !isResource(resource)) {
    throw itemError('resource', `must be one of ${RESOURCES.join(', ')}`);
  }
  // The id as the single route's path takes it: a number, or its digits as a string (PHP sends either).
  const n = typeof id === 'string' && /^[1-9]\d{0,15}$/.test(id) ? Number(id) : id;
  // A DELETE may name a customer from Waypost's own range (as DELETE /host/v1/customers/{id} may).
  const problem = typeof n === 'number' && Number.isSafeInteger(n) && n >= 1 && op === 'delete'
    ? null
    : hostIdProblem(n);
  if (problem) throw itemError('id', problem);
  if (op === 'put' && data === undefined) throw itemError('data', 'is required for "put" (the record\'s fields)');
  if (op === 'delete' && data !== undefined) throw itemError('data', 'must be absent for "delete"');
  return { op, resource, id: n as number, data };
}

/** An operation's own 4xx as its result, `data.` in front of a record field so the bridge knows what to fix. */
function inputError(err: AppError, index: number): BatchResult {
  const extra = { ...err.extra };
  let detail = err.detail;
  if (err.code !== 'invalid_operation' && typeof extra.field === 'string') {
    const field = extra.field === '(body)' ? 'data' : `data.${extra.field}`;
    if (detail.startsWith(extra.field)) detail = field + detail.slice(extra.field.length);
    extra.field = field;
  }
  return { index, status: err.status as BatchResult['status'], error: { code: err.code, detail, ...extra } };
}

/**
 * Runs one operation. What concerns it alone is its result: bad input (400), a demo record (409,
 * src/host/demo-guard.ts), as on the single route, or a fault of ours its data ran into (500, logged; the single PUT
 * would answer the same), so the operations after it still run. A lost database (or a 503) fails the request: the
 * rest would fail too, and the bridge sends the same batch again.
 */
async function runOperation(core: Core, raw: unknown, index: number): Promise<BatchResult> {
  try {
    const { op, resource, id, data } = parseOperation(raw);
    if (op === 'delete') return { index, status: (await deleteRecord(core, resource, id)) ? 204 : 404 };
    const { created, changed } = await putRecord(core, resource, id, data);
    return { index, status: created ? 201 : 200, created, changed };
  } catch (err) {
    if (err instanceof AppError && err.status >= 400 && err.status < 500) return inputError(err, index);
    if (err instanceof AppError || isConnectionError(err)) throw err;
    core.log.error({ err, index }, 'batch operation failed');
    const detail = 'Something went wrong on our side with this operation; it has been logged.';
    return { index, status: 500, error: { code: 'internal_error', detail } };
  }
}

/** Runs the operations in order, each on its own (see the top of this file). */
export async function runBatch(core: Core, body: unknown): Promise<BatchResult[]> {
  const operations = batchOperations(body);
  const results: BatchResult[] = [];
  for (const [index, raw] of operations.entries()) results.push(await runOperation(core, raw, index));
  return results;
}
