// Validates host input against the record schemas. The Host API, the SDK and the importer all call this, so a bad
// body gets the same message whichever way it arrives.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { badRequest } from '../errors.js';
import {
  ASSIGNED_ID_MIN,
  BOOKING_STATUS_SPELLINGS,
  INPUT_SCHEMAS,
  PAYMENT_STATUS_SPELLINGS,
  RESOURCES,
  type InputRecords,
  type Resource,
} from './schemas.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
let ajv: Ajv | undefined;
const validators = new Map<Resource, ValidateFunction>();

// Compiled on first use: compiling all six at import took ~0.25 s of every CLI start, and most commands write nothing.
function validatorOf(resource: Resource): ValidateFunction {
  let validate = validators.get(resource);
  if (!validate) {
    if (!ajv) {
      ajv = addFormats(new Ajv({ allErrors: false, strict: false }));
      // RFC 3339 allows a leap second (…:60), which a JavaScript Date cannot hold: every stored time is a Date's
      // ISO text, so such a value would fail after validation (a 500). Refused here, naming the field.
      const rfc3339 = fullFormats['date-time'] as { validate: (s: string) => boolean };
      ajv.addFormat('date-time', { type: 'string',
        validate: (s: string) => rfc3339.validate(s) && Number.isFinite(Date.parse(s)) });
    }
    validators.set(resource, validate = ajv.compile(INPUT_SCHEMAS[resource]));
  }
  return validate;
}

const SPELLINGS: Record<string, string> = { ...BOOKING_STATUS_SPELLINGS, ...PAYMENT_STATUS_SPELLINGS };

function describe(error: ErrorObject): { field: string; message: string } {
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (error.keyword === 'enum') {
    // Name the values (ajv only says "allowed values"); the product's other spellings are listed apart.
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues.map(String);
    const values = allowed.filter((v) => !Object.hasOwn(SPELLINGS, v));
    const others = allowed.filter((v) => Object.hasOwn(SPELLINGS, v)).map((v) => `${v} (= ${SPELLINGS[v]})`);
    const also = others.length > 0 ? `; also accepted: ${others.join(', ')}` : '';
    return { field: path || '(body)', message: `must be one of: ${values.join(', ')}${also}` };
  }
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return { field: path ? `${path}.${missing}` : missing, message: 'is required' };
  }
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return { field: path ? `${path}.${extra}` : extra, message: 'is not a known field' };
  }
  return { field: path || '(body)', message: error.message ?? 'is invalid' };
}

/** Why a record id cannot be the host's (null when it can): positive, and below the range Waypost assigns from. */
export function hostIdProblem(id: unknown): string | null {
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) return 'must be a positive integer';
  if (id >= ASSIGNED_ID_MIN) return `must be below ${ASSIGNED_ID_MIN} (ids from there up are assigned by Waypost)`;
  return null;
}

/**
 * Fields the API shows but derives (DESIGN.md "Record ids"): a body may repeat them, so a host can write back what
 * it read, and they are ignored. created_at/updated_at are not among them: they are the host's to give.
 */
export const READ_ONLY_FIELDS: Record<Resource, readonly string[]> = {
  trips: [], customers: ['booking_ids'], bookings: ['payment_ids', 'data_complete'],
  payments: [], enquiries: [], reviews: [],
};

/** The body without its repeated `id` (which must be the path's) and read-only fields. */
function withoutShownFields(
  resource: Resource, body: Record<string, unknown>, pathId: number | undefined,
): Record<string, unknown> {
  const drop = READ_ONLY_FIELDS[resource];
  const repeatsId = pathId !== undefined && Object.hasOwn(body, 'id');
  if (!repeatsId && !drop.some((f) => Object.hasOwn(body, f))) return body;
  if (repeatsId) {
    const id = body.id;
    const same = id === pathId || (typeof id === 'string' && /^[1-9]\d{0,15}$/.test(id) && Number(id) === pathId);
    if (!same) {
      const detail = `id ${JSON.stringify(id)} does not match the id in the path (${pathId})`;
      throw badRequest('invalid_field', `${detail}: leave it out or send the same`, { field: 'id' });
    }
  }
  const out = { ...body };
  if (repeatsId) delete out.id;
  for (const f of drop) delete out[f];
  return out;
}

/**
 * Throws a 400 AppError naming the offending field, or returns the typed input. With the path's id, the body may
 * repeat it and the read-only fields the API shows (READ_ONLY_FIELDS).
 */
export function validateInput<R extends Resource>(resource: R, raw: unknown, pathId?: number): InputRecords[R] {
  const validate = validatorOf(resource);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw badRequest('invalid_body', 'the body must be a JSON object', { field: '(body)' });
  }
  const body = withoutShownFields(resource, raw as Record<string, unknown>, pathId);
  if (!validate(body)) {
    const first = describe(validate.errors![0]);
    throw badRequest('invalid_field', `${first.field} ${first.message}`, { field: first.field });
  }
  const nul = findNul(body, '');
  if (nul !== null) {
    throw badRequest('invalid_field', `${nul} must not contain the NUL character (\\u0000)`, { field: nul });
  }
  return body as InputRecords[R];
}

/** PostgreSQL text cannot hold U+0000, so it is refused on every dialect: the field's path, or null. */
function findNul(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '(body)' : null;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const hit = findNul(v, path ? `${path}.${i}` : String(i));
      if (hit !== null) return hit;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const hit = findNul(v, path ? `${path}.${k}` : k);
      if (hit !== null) return hit;
    }
  }
  return null;
}

export function isResource(value: string): value is Resource {
  return (RESOURCES as readonly string[]).includes(value);
}
