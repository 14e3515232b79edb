// The payload filter language (docs/webhooks.md "Filters"): a JSON tree of conditions on the envelope's fields,
// combined with `all` / `any`. No code is run: a filter is data, compiled once into a tree and walked per event,
// at a cost bounded by its size (at most MAX_CONDITIONS conditions, MAX_DEPTH levels) times the payload's arrays.

export const OPERATORS = [
  'eq', 'ne', 'in', 'not_in', 'gt', 'gte', 'lt', 'lte', 'starts_with', 'ends_with', 'contains', 'exists',
] as const;
export type Operator = (typeof OPERATORS)[number];

export const MAX_CONDITIONS = 50;
export const MAX_DEPTH = 5;
export const MAX_LIST = 100;
export const MAX_TEXT = 500;

export type Scalar = string | number | boolean;

export type FilterNode =
  | { all: FilterNode[] }
  | { any: FilterNode[] }
  | { field: string; op: Operator; value: Scalar | Scalar[]; steps: Step[] };

/** One step of a path: a key, then `each` when the key holds an array whose elements are walked (`trips[]`). */
interface Step { key: string; each: boolean }

export function steps(path: string): Step[] {
  return path.split('.').map((part) => part.endsWith('[]')
    ? { key: part.slice(0, -2), each: true } : { key: part, each: false });
}

/** The values a path reaches in an envelope: arrays walked by `[]`; absent and null values are not values. */
function reach(envelope: unknown, path: Step[]): unknown[] {
  let current: unknown[] = [envelope];
  for (const { key, each } of path) {
    const next: unknown[] = [];
    for (const value of current) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
      const child = (value as Record<string, unknown>)[key];
      if (child === undefined || child === null) continue;
      if (each) {
        if (Array.isArray(child)) for (const item of child) if (item !== null && item !== undefined) next.push(item);
      } else next.push(child);
    }
    current = next;
  }
  return current;
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** A number operand compares numerically: amounts are strings in payloads ("2480.00"). */
function asNumber(value: unknown): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && DECIMAL.test(value)) return Number(value);
  return null;
}

function equal(value: unknown, operand: Scalar): boolean {
  if (typeof operand === 'number') return asNumber(value) === operand;
  return value === operand;
}

function order(value: unknown, operand: Scalar): number | null {
  if (typeof operand === 'number') {
    const n = asNumber(value);
    return n === null ? null : n - operand;
  }
  if (typeof operand === 'string' && typeof value === 'string') return value < operand ? -1 : value > operand ? 1 : 0;
  return null;
}

function text(value: unknown, operand: Scalar, test: (v: string, o: string) => boolean): boolean {
  return typeof value === 'string' && typeof operand === 'string' && test(value.toLowerCase(), operand.toLowerCase());
}

function holds(value: unknown, op: Operator, operand: Scalar | Scalar[]): boolean {
  const one = operand as Scalar;
  switch (op) {
    case 'eq': return equal(value, one);
    case 'in': return (operand as Scalar[]).some((o) => equal(value, o));
    case 'gt': { const d = order(value, one); return d !== null && d > 0; }
    case 'gte': { const d = order(value, one); return d !== null && d >= 0; }
    case 'lt': { const d = order(value, one); return d !== null && d < 0; }
    case 'lte': { const d = order(value, one); return d !== null && d <= 0; }
    case 'starts_with': return text(value, one, (v, o) => v.startsWith(o));
    case 'ends_with': return text(value, one, (v, o) => v.endsWith(o));
    case 'contains': return text(value, one, (v, o) => v.includes(o));
    default: return false;
  }
}

/** Whether an envelope (`{data, previous_attributes}`) passes a compiled filter. */
export function matches(node: FilterNode, envelope: unknown): boolean {
  if ('all' in node) return node.all.every((n) => matches(n, envelope));
  if ('any' in node) return node.any.some((n) => matches(n, envelope));
  const values = reach(envelope, node.steps);
  switch (node.op) {
    case 'exists': return (values.length > 0) === node.value;
    // The negations hold when no value reached is equal (or listed): an absent field is not equal to anything.
    case 'ne': return !values.some((v) => holds(v, 'eq', node.value));
    case 'not_in': return !values.some((v) => holds(v, 'in', node.value));
    // A path through an array holds when any element does (`data.trips[].trip_id eq 7`: one of the trips is 7).
    default: return values.some((v) => holds(v, node.op, node.value));
  }
}
