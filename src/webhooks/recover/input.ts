// What a recover asks for: a time (deliveries created at or after it), which final statuses to redeliver, and whether
// to send the events missed while the webhook was off since then (`missed`, default true; recover/missed.ts).
import { badRequest } from '../../errors.js';
import type { DeliveryStatus } from '../tables.js';

export const RECOVERABLE: readonly DeliveryStatus[] = ['failed', 'cancelled'];

export interface RecoverInput {
  since?: unknown;
  statuses?: unknown;
  missed?: unknown;
}

export interface RecoverRequest {
  since: string; // ISO 8601
  statuses: DeliveryStatus[];
  missed: boolean;
}

const invalid = (field: string, detail: string) => badRequest('invalid_field', `${field}: ${detail}`, { field });

export function checkInput(body: unknown): RecoverRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('invalid_body', 'the body must be a JSON object', { field: '(body)' });
  }
  const { since, statuses, missed = true } = body as RecoverInput;
  if (typeof missed !== 'boolean') throw invalid('missed', 'must be true or false');
  if (typeof since !== 'string' || Number.isNaN(Date.parse(since))) {
    throw invalid('since', 'give an ISO 8601 time, e.g. 2026-01-31T00:00:00Z');
  }
  let chosen: DeliveryStatus[] = [...RECOVERABLE];
  if (statuses !== undefined) {
    const unknown = (s: unknown) => !RECOVERABLE.includes(s as DeliveryStatus);
    // None is fine when it sends the missed events only.
    if (!Array.isArray(statuses) || (statuses.length === 0 && !missed) || statuses.some(unknown)) {
      throw invalid('statuses', `choose one or both of ${RECOVERABLE.join(', ')}${missed ? '' : ' (or missed: true)'}`);
    }
    chosen = [...new Set(statuses as DeliveryStatus[])];
  }
  return { since: new Date(Date.parse(since)).toISOString(), statuses: chosen, missed };
}
