// What an erased person's data becomes, wherever a copy of it is kept: the stored records, the events (`data` and
// `previous_attributes`) and the bodies of the deliveries that carried them. The same rules serve a whole record and
// an update's partial one (only the keys present are touched), so every copy of a record is erased alike.
import type { Resource } from '../records/schemas.js';

/** A review's author once erased: WordPress's own eraser names an erased comment's author so. */
export const ANONYMOUS = 'Anonymous';

type Json = Record<string, unknown>;

const NO_ADDRESS = { line1: null, city: null, state: null, postcode: null, country: null };

/** Each personal field of a record, and what it becomes (an e-mail, a required string, becomes empty). */
const PERSONAL: Partial<Record<Resource, Json>> = {
  customers: { email: '', first_name: null, last_name: null, phone: null, address: NO_ADDRESS },
  bookings: { customer: null },
  enquiries: { full_name: '', email: '', phone: null, country: null, message: null },
  reviews: { author_name: ANONYMOUS },
};

/** Whether records of this kind carry personal fields (payments and trips do not). */
export const carriesPersonalData = (resource: string): boolean => resource in PERSONAL;

/** The record (whole, or the changed fields of an update) with its personal fields erased. */
export function anonymised<T>(resource: string, record: T): T {
  const personal = PERSONAL[resource as Resource];
  if (!personal || typeof record !== 'object' || record === null || Array.isArray(record)) return record;
  const out: Json = { ...(record as Json) };
  for (const [key, erased] of Object.entries(personal)) if (key in out) out[key] = erased;
  return out as T;
}

/**
 * The last net, for copies whose shape we do not own (a payload changed by an in-process `webhookPayload` filter, a
 * receiver's answer): every string that contains one of the person's identifiers (e-mail, phone, full name; matched
 * case-insensitively) has it replaced, at any depth.
 */
export function scrubbed(value: unknown, identifiers: readonly string[]): unknown {
  if (identifiers.length === 0) return value;
  if (typeof value === 'string') return scrubText(value, identifiers);
  if (Array.isArray(value)) return value.map((v) => scrubbed(v, identifiers));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubbed(v, identifiers)]));
  }
  return value;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function scrubText(text: string, identifiers: readonly string[]): string {
  if (identifiers.length === 0) return text;
  const lower = text.toLowerCase();
  if (!identifiers.some((id) => lower.includes(id))) return text;
  return text.replace(new RegExp(identifiers.map(escape).join('|'), 'gi'), '[erased]');
}

/**
 * A stored event's JSON columns or a delivery's request body, erased: the envelope's `data` and
 * `previous_attributes` by the record's rules, then the net over everything. A body that is not JSON is replaced.
 */
export function erasedJson(text: string, resource: string, identifiers: readonly string[], envelope: boolean): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return scrubText(text, identifiers) === text ? text : '"[erased]"';
  }
  if (envelope && typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
    const body = { ...(parsed as Json) };
    if ('data' in body) body.data = anonymised(resource, body.data);
    if ('previous_attributes' in body) body.previous_attributes = anonymised(resource, body.previous_attributes);
    parsed = body;
  } else if (!envelope) {
    parsed = anonymised(resource, parsed);
  }
  return JSON.stringify(scrubbed(parsed, identifiers));
}
