// Schema validation errors of the admin API, in words a console user can act on: "rate_limit: must be at least
// 1 request per window" instead of ajv's "rate_limit must be >= 1". Every failed field is named (ajv reports
// what it found), and the answer is the usual 400 problem with the first field for the form to mark.
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import { AppError } from '../errors.js';

/** Units for numeric fields, so a limit reads as a quantity: "at least 1 request per window". */
const UNITS: Record<string, [one: string, many: string]> = {
  rate_limit: ['request per window', 'requests per window'],
  log_retention_days: ['day', 'days'],
};

const quantity = (field: string, n: number) => {
  const unit = UNITS[field];
  return unit ? `${n} ${n === 1 ? unit[0] : unit[1]}` : String(n);
};

const TYPE_WORDS: Record<string, string> = {
  integer: 'a whole number', number: 'a number', string: 'text', array: 'a list', object: 'an object',
  boolean: 'true or false',
};

function describe(field: string, e: FastifySchemaValidationError): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'minimum': return `must be at least ${quantity(field, Number(p.limit))}`;
    case 'maximum': return `must be at most ${quantity(field, Number(p.limit))}`;
    case 'minLength': return Number(p.limit) <= 1 ? 'must not be empty' : `must be at least ${p.limit} characters`;
    case 'maxLength': return `must be at most ${p.limit} characters`;
    case 'minItems': return Number(p.limit) <= 1 ? 'choose at least one' : `choose at least ${p.limit}`;
    case 'maxItems': return `choose at most ${p.limit}`;
    case 'required': return 'is required';
    case 'additionalProperties': return 'is not a field this request accepts';
    case 'minProperties': return 'give at least one field to change';
    case 'enum': return `must be one of ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'pattern': case 'format': return 'is not in the expected format';
    case 'type': {
      const types = ([] as string[]).concat(p.type as string | string[]).filter((t) => t !== 'null');
      return `must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`;
    }
    default: return e.message ?? 'is invalid';
  }
}

function fieldOf(e: FastifySchemaValidationError, where: string): string {
  const p = e.params as { missingProperty?: string; additionalProperty?: string };
  const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const child = p.missingProperty ?? p.additionalProperty;
  return [path, child].filter(Boolean).join('.') || where;
}

type SchemaErrorFormatter = Parameters<FastifyInstance['setSchemaErrorFormatter']>[0];

/** Fastify schema error formatter for the admin API (an AppError passes through the problem handler as is). */
export const humanValidationError: SchemaErrorFormatter = (errors, where) => {
  const problems = errors.map((e) => ({ field: fieldOf(e, where), message: describe(fieldOf(e, where), e) }));
  const detail = problems.map((p) => `${p.field}: ${p.message}`).join('; ');
  const code = where === 'querystring' ? 'invalid_parameter' : 'invalid_field';
  return new AppError(400, code, 'Bad Request', detail, { field: problems[0]?.field ?? where, errors: problems });
};
