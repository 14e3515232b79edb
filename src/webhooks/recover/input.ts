// What a recover asks for: a time (deliveries created at or after it) and which final statuses to redeliver.
import { badRequest } from '../../errors.js';
import type { DeliveryStatus } from '../tables.js';

export const RECOVERABLE: readonly DeliveryStatus[] = ['failed', 'cancelled'];

export interface RecoverInput {
  since?: unknown;
  statuses?: unknown;
}

export interface RecoverRequest {
  since: string; // ISO 8601
  statuses: DeliveryStatus[];
}

const invalid = (field: string, detail: string) => badRequest('invalid_field', `${field}: ${detail}`, { field });

export function checkInput(body: unknown): RecoverRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('invalid_body', 'the body must be a JSON object', { field: '(body)' });
  }
  const { since, statuses } = body as RecoverInput;
  if (typeof since !== 'string' || Number.isNaN(Date.parse(since))) {
    throw invalid('since', 'give an ISO 8601 time, e.g. 2026-01-31T00:00:00Z');
  }
  let chosen: DeliveryStatus[] = [...RECOVERABLE];
  if (statuses !== undefined) {
    const unknown = (s: unknown) => !RECOVERABLE.includes(s as DeliveryStatus);
    if (!Array.isArray(statuses) || statuses.length === 0 || statuses.some(unknown)) {
      throw invalid('statuses', `choose one or both of ${RECOVERABLE.join(', ')}`);
    }
    chosen = [...new Set(statuses as DeliveryStatus[])];
  }
  return { since: new Date(Date.parse(since)).toISOString(), statuses: chosen };
}
