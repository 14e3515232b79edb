// Validates host input against the record schemas. The Host API, the SDK and the importer all call this, so a bad
// body gets the same message whichever way it arrives.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
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
const ajv = addFormats(new Ajv({ allErrors: false, strict: false }));
const validators = Object.fromEntries(
  RESOURCES.map((r) => [r, ajv.compile(INPUT_SCHEMAS[r])]),
) as Record<Resource, ValidateFunction>;

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

/** Throws a 400 AppError naming the offending field, or returns the typed input. */
export function validateInput<R extends Resource>(resource: R, body: unknown): InputRecords[R] {
  const validate = validators[resource];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('invalid_body', 'the body must be a JSON object', { field: '(body)' });
  }
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
