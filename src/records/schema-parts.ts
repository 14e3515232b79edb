// The building blocks of the record schemas (src/records/schemas.ts): nullable values, amounts, times, ids, texts,
// enums and the status inputs that accept the product's other spellings.
import { Type, type TSchema } from '@sinclair/typebox';

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
export const Decimal = Type.String({
  pattern: '^-?\\d{1,15}(\\.\\d{1,4})?$',
  description: 'Decimal amount as a string, e.g. "1250.00"',
  examples: ['1250.00'],
});
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 time, UTC' });
export const Currency = Type.String({
  pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code', examples: ['EUR'],
});
export const RecordId = Type.Integer({
  minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Positive integer id given by the booking product',
});
/**
 * Ids from here up are Waypost's own (a booking's new embedded customer): the host's ids stay below, so a host PUT
 * can never land on a person Waypost created. WordPress post ids are far below; JavaScript numbers hold both ranges.
 */
export const ASSIGNED_ID_MIN = 1_000_000_000_000_000;
export const Email = Type.String({ format: 'email', maxLength: 254 });
export const Text = (max = 500) => Type.String({ maxLength: max });
// Compared with semver (normalize.ts), which takes a part of at most 16 digits that is a safe integer: 9 digits a
// part (real ones have 1-4) keeps every accepted version comparable, so none can fail a write after validation.
export const Version = Type.String({
  pattern: '^\\d{1,9}(\\.\\d{1,9}){0,2}$',
  description: 'Dotted version of 1 to 3 numbers of at most 9 digits each, e.g. 6.7.0',
});

// A plain JSON Schema `enum` (not a union of literals), so a bad value gets one error listing the choices.
export const Enum = <T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
export const StatusInput = <T extends string>(values: readonly string[], spellings: Record<string, string>) =>
  Type.Unsafe<T>({
    type: 'string',
    enum: [...values, ...Object.keys(spellings)],
    description: `One of ${values.join(', ')}; also accepted and stored as the value shown: `
      + Object.entries(spellings).map(([from, to]) => `${from} → ${to}`).join(', '),
  });
