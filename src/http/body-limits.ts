// Request body limits (docs/security.md): each scope and route says how many bytes it reads, and the Host API's JSON
// is checked for its shape before it is parsed. JSON.parse builds the whole value on the V8 heap, and a few bytes of
// input can cost many times their size there: `[],` is 3 bytes and 43 bytes of heap once parsed (an empty array and
// its slot in the parent). 16 MiB of `[[],[],…]` filled the 160 MB heap `waypost serve` has and killed it (issue 29).
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

/**
 * What a route reads unless it or its scope says otherwise (src/app.ts): the admin API's forms (a webhook, a key,
 * settings: a few KB) and the ops routes (no body).
 */
export const DEFAULT_BODY_LIMIT = 64 * 1024;

/** Every route registered in this scope (and its children) from now on reads at most `bytes` unless it says so. */
export function scopeBodyLimit(app: FastifyInstance, bytes: number): void {
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= bytes;
  });
}

export interface JsonShapeLimits {
  /** Arrays and objects nested inside one another, the outermost counting 1. */
  maxDepth: number;
  /** Arrays, objects and the items after a comma: about the number of values JSON.parse would make. */
  maxValues: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/** The index of the quote that ends the string opened at `start`, or the length when it never ends. */
function endOfString(json: Buffer, start: number): number {
  let at = start;
  for (;;) {
    at = json.indexOf(QUOTE, at + 1);
    if (at < 0) return json.length;
    let backslashes = 0;
    while (json[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

/**
 * Why a JSON body is refused before it is parsed (null: parse it). One pass over the bytes, strings skipped with
 * indexOf; it only counts, so malformed JSON passes here and JSON.parse refuses it as before.
 */
export function jsonShapeProblem(json: Buffer, limits: JsonShapeLimits): AppError | null {
  let depth = 0;
  let values = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === QUOTE) {
      i = endOfString(json, i);
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > limits.maxDepth) {
        return new AppError(400, 'too_deep', 'Bad Request', `the JSON body nests arrays and objects more than `
          + `${limits.maxDepth} deep; no record needs that many`, { field: '(body)', max_depth: limits.maxDepth });
      }
      if (++values > limits.maxValues) return tooManyValues(limits.maxValues);
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      // More closed than opened: JSON.parse stops at this point or before it, so nothing after it costs anything.
      if (--depth < 0) return null;
    } else if (c === COMMA && ++values > limits.maxValues) {
      return tooManyValues(limits.maxValues);
    }
  }
  return null;
}

const tooManyValues = (max: number) => new AppError(413, 'too_many_values', 'Payload Too Large',
  `the JSON body holds more than ${max.toLocaleString('en')} values (arrays, objects and their items): `
  + 'send fewer operations per batch', { field: '(body)', max_values: max });

/**
 * Parses application/json in this scope (and its children) only after jsonShapeProblem found nothing: the bytes
 * are read as a Buffer (outside the V8 heap), so a refused body never becomes a string or a value. Otherwise as
 * Fastify's own parser (the same errors, `__proto__` and `constructor` keys refused).
 */
export function guardJsonBodies(app: FastifyInstance, limits: JsonShapeLimits): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const problem = jsonShapeProblem(body as Buffer, limits);
    if (problem) {
      done(problem, undefined);
      return;
    }
    parse(req, (body as Buffer).toString('utf8'), done);
  });
}
