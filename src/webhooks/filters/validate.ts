// Checking a filter on save (a 400 naming the part: `filter.all[1].field: …`) against the fields of the webhook's
// event types, and compiling a stored one for the write listener (cached by its text: the same few filters are
// evaluated on every write).
import { badRequest } from '../../errors.js';
import type { EventType } from '../catalog.js';
import { filterFields, type FilterField } from './fields.js';
import {
  MAX_CONDITIONS, MAX_DEPTH, MAX_LIST, MAX_TEXT, OPERATORS, steps, type FilterNode, type Operator, type Scalar,
} from './language.js';

const bad = (part: string, detail: string) =>
  badRequest('invalid_filter', `${part}: ${detail}`, { field: 'filter', part });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown) => JSON.stringify(v) ?? String(v);

interface Walk { fields: Map<string, FilterField> | null; conditions: number; types: readonly EventType[] }

/** The known field nearest in spelling, for "did you mean". */
function nearest(path: string, fields: Iterable<string>): string | null {
  let best: string | null = null;
  let bestCost = Math.max(3, Math.floor(path.length / 4)) + 1;
  for (const candidate of fields) {
    const cost = distance(path, candidate);
    if (cost < bestCost) [best, bestCost] = [candidate, cost];
  }
  return best;
}

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length];
}

function checkField(part: string, path: unknown, walk: Walk): FilterField | null {
  if (typeof path !== 'string' || !/^(data|previous_attributes)(\.[a-z_][a-z0-9_]*(\[\])?)+$/.test(path)) {
    throw bad(`${part}.field`, `must be a path such as "data.status" or "data.trips[].trip_id" (got ${show(path)})`);
  }
  if (!walk.fields) return null;
  const field = walk.fields.get(path);
  if (field) return field;
  const near = nearest(path, walk.fields.keys());
  throw bad(`${part}.field`, `unknown field "${path}" for ${walk.types.join(', ')}`
    + (near ? ` (did you mean "${near}"?)` : ''));
}

/** One operand, made to fit the field: amounts and ids compare as numbers, statuses must be one of theirs. */
function checkOperand(part: string, value: unknown, op: Operator, field: FilterField | null): Scalar {
  if (typeof value === 'string' && value.length > MAX_TEXT) throw bad(part, `is over ${MAX_TEXT} characters`);
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw bad(part, `must be a string, a number or true/false (got ${show(value)})`);
  }
  if (typeof value === 'number' && !Number.isFinite(value)) throw bad(part, 'must be a finite number');
  const textual = op === 'starts_with' || op === 'ends_with' || op === 'contains';
  if (textual && typeof value !== 'string') throw bad(part, `${op} compares text: give a string (got ${show(value)})`);
  if (!field) return value;
  const ordered = op === 'gt' || op === 'gte' || op === 'lt' || op === 'lte';
  const kind = field.kind;
  if (kind === 'object' || kind === 'array') {
    throw bad(part, `${field.path} is ${kind === 'object' ? 'an object' : 'a list'}: only exists applies to it`
      + (kind === 'array' ? ` (compare its elements with "${field.path}[]…")` : ''));
  }
  if (kind === 'number' || kind === 'decimal') {
    if (textual) throw bad(part, `${field.path} is a number: ${op} applies to text fields`);
    const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)
      ? Number(value) : null;
    if (n === null) throw bad(part, `${field.path} is a number: give a number (got ${show(value)})`);
    return n;
  }
  if (kind === 'boolean') {
    if (typeof value !== 'boolean' || ordered || textual) {
      throw bad(part, `${field.path} is true or false: use eq, ne or exists with true or false`);
    }
    return value;
  }
  if (typeof value !== 'string') throw bad(part, `${field.path} is text: give a string (got ${show(value)})`);
  if (field.values && !textual && !ordered && !field.values.includes(value)) {
    throw bad(part, `${show(value)} is not a value of ${field.path} (one of ${field.values.join(', ')})`);
  }
  return value;
}

function checkCondition(part: string, raw: Record<string, unknown>, walk: Walk): FilterNode {
  if (++walk.conditions > MAX_CONDITIONS) throw bad(part, `a filter has at most ${MAX_CONDITIONS} conditions`);
  const field = checkField(part, raw.field, walk);
  const ops = Object.keys(raw).filter((k) => k !== 'field');
  const unknown = ops.find((k) => !(OPERATORS as readonly string[]).includes(k));
  if (unknown !== undefined) {
    throw bad(`${part}.${unknown}`, `unknown operator (expected one of ${OPERATORS.join(', ')}; or all/any)`);
  }
  if (ops.length !== 1) throw bad(part, `give exactly one operator beside "field" (one of ${OPERATORS.join(', ')})`);
  const op = ops[0] as Operator;
  const operand = raw[op];
  const at = `${part}.${op}`;
  const path = raw.field as string;
  if (op === 'exists') {
    if (typeof operand !== 'boolean') throw bad(at, 'must be true or false');
    return { field: path, op, value: operand, steps: steps(path) };
  }
  if (op === 'in' || op === 'not_in') {
    if (!Array.isArray(operand) || operand.length === 0 || operand.length > MAX_LIST) {
      throw bad(at, `must be a list of 1 to ${MAX_LIST} values`);
    }
    const list = operand.map((v, i) => checkOperand(`${at}[${i}]`, v, op, field));
    return { field: path, op, value: list, steps: steps(path) };
  }
  return { field: path, op, value: checkOperand(at, operand, op, field), steps: steps(path) };
}

function checkNode(part: string, raw: unknown, depth: number, walk: Walk): FilterNode {
  if (!isObject(raw)) throw bad(part, `must be an object: {"all": […]}, {"any": […]} or {"field": …, "eq": …}`);
  const group = 'all' in raw ? 'all' : 'any' in raw ? 'any' : null;
  if (group === null) return checkCondition(part, raw, walk);
  const extra = Object.keys(raw).find((k) => k !== group);
  if (extra !== undefined) throw bad(`${part}.${extra}`, `a group has only "${group}"`);
  if (depth >= MAX_DEPTH) throw bad(part, `groups nest at most ${MAX_DEPTH} deep`);
  const items = raw[group];
  if (!Array.isArray(items) || items.length === 0) throw bad(`${part}.${group}`, 'must be a non-empty list');
  const nodes = items.map((item, i) => checkNode(`${part}.${group}[${i}]`, item, depth + 1, walk));
  return group === 'all' ? { all: nodes } : { any: nodes };
}

/** The stored form of a compiled filter: what the user wrote, operands made to fit their fields. */
export function storedForm(node: FilterNode): unknown {
  if ('all' in node) return { all: node.all.map(storedForm) };
  if ('any' in node) return { any: node.any.map(storedForm) };
  return { field: node.field, [node.op]: node.value };
}

/** A filter as sent on save, checked against the webhook's event types; null (or absent) is no filter. */
export function checkFilter(raw: unknown, types: readonly EventType[]): FilterNode | null {
  if (raw === null) return null;
  const fields = new Map(filterFields(types).map((f) => [f.path, f]));
  return checkNode('filter', raw, 0, { fields, conditions: 0, types });
}

const compiled = new Map<string, FilterNode>();

/** A stored filter (JSON text), compiled once per process; it was checked when it was saved. */
export function compileStored(text: string): FilterNode {
  let node = compiled.get(text);
  if (!node) {
    node = checkNode('filter', JSON.parse(text), 0, { fields: null, conditions: 0, types: [] });
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(text, node);
  }
  return node;
}
