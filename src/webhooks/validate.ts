// What a webhook's fields may be (DESIGN.md "Webhooks"): the checks create and update share, each 400 naming its
// field. The URL's own rules (https, no private targets unless the server allows them) are in ssrf.ts.
import type { Core } from '../core.js';
import { badRequest } from '../errors.js';
import { EVENT_TYPE_NAMES, isEventType, type EventType } from './catalog.js';
import { checkTargetUrl } from './ssrf.js';
import { readPrivateTargets } from './private-targets.js';
import type { WebhookOrdering, WebhookPayload } from './tables.js';

export interface WebhookInput {
  name?: unknown;
  url?: unknown;
  events?: unknown;
  active?: unknown;
  max_per_second?: unknown;
  filter?: unknown;
  ordering?: unknown; payload?: unknown;
}

export const WEBHOOK_FIELDS = ['name', 'url', 'events', 'active', 'max_per_second', 'filter', 'ordering', 'payload'];
export const MAX_PER_SECOND_LIMIT = 1000;

const invalid = (field: string, detail: string) => badRequest('invalid_field', `${field}: ${detail}`, { field });

export function checkBody(body: unknown): WebhookInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('invalid_body', 'the body must be a JSON object', { field: '(body)' });
  }
  const unknown = Object.keys(body).find((k) => !WEBHOOK_FIELDS.includes(k));
  if (unknown) throw invalid(unknown, `is not a webhook field (expected ${WEBHOOK_FIELDS.join(', ')})`);
  return body as WebhookInput;
}

export function checkName(value: unknown): string {
  if (typeof value !== 'string' || value.trim().length === 0) throw invalid('name', 'is required (1-100 characters)');
  const name = value.trim();
  if (name.length > 100) throw invalid('name', `must be at most 100 characters (got ${name.length})`);
  return name;
}

export function checkEvents(value: unknown): EventType[] {
  const names = EVENT_TYPE_NAMES.join(', ');
  if (!Array.isArray(value) || value.length === 0) throw invalid('events', `choose at least one event: ${names}`);
  const bad = value.find((e) => !isEventType(e));
  if (bad !== undefined) {
    throw invalid('events', `unknown event type ${JSON.stringify(bad)} (expected one of ${names})`);
  }
  // Keep the catalog's order and drop duplicates, so equal subscriptions look equal.
  return EVENT_TYPE_NAMES.filter((t) => value.includes(t));
}

export function checkActive(value: unknown): boolean {
  if (typeof value !== 'boolean') throw invalid('active', 'must be true or false');
  return value;
}

/** null (or absent on create) is unlimited; otherwise a whole number of deliveries per second. */
export function checkMaxPerSecond(value: unknown): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_PER_SECOND_LIMIT) {
    throw invalid('max_per_second', `must be a whole number from 1 to ${MAX_PER_SECOND_LIMIT}, or null for no limit `
      + `(got ${JSON.stringify(value) ?? String(value)})`);
  }
  return value;
}

/** One of a field's few values: ordering ('none' | 'record'), payload ('full' | 'minimal'). */
function checkChoice<T extends string>(field: string, value: unknown, choices: readonly T[]): T {
  if (!choices.includes(value as T)) {
    const got = JSON.stringify(value) ?? String(value);
    throw invalid(field, `must be ${choices.map((c) => `"${c}"`).join(' or ')} (got ${got})`);
  }
  return value as T;
}
export const checkOrdering = (value: unknown) => checkChoice<WebhookOrdering>('ordering', value, ['none', 'record']);
export const checkPayload = (value: unknown) => checkChoice<WebhookPayload>('payload', value, ['full', 'minimal']);

export async function checkUrl(core: Core, value: unknown): Promise<{ url: string; warning: string | null }> {
  if (typeof value !== 'string' || value.trim() === '') throw invalid('url', 'is required (an absolute https:// URL)');
  if (value.length > 2000) throw invalid('url', 'must be at most 2000 characters');
  // Private targets as the stored setting says now (another process may have changed it): its 400s name "url".
  return checkTargetUrl(value, { allowPrivateTargets: (await readPrivateTargets(core)).allowed });

}
