// The opaque `after` cursor: the last row's sort key and id, so the next page starts right after it through the
// list index (keyset pagination: O(perpage) at any depth). It remembers the sort it was made for.
import { invalidParameter } from '../errors.js';

export interface Cursor {
  orderby: string;
  order: 'asc' | 'desc';
  value: string | number;
  id: number;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.orderby, c.order, c.value, c.id])).toString('base64url');
}

export function decodeCursor(raw: string, orderby: string, order: 'asc' | 'desc'): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalidParameter('after', 'not a cursor from a Link header');
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) throw invalidParameter('after', 'not a cursor from a Link header');
  const [o, d, value, id] = parsed as unknown[];
  const badValue = typeof value === 'string'
    ? value.includes('\0') || value.length > 300
    : typeof value !== 'number' || !Number.isFinite(value);
  if (typeof o !== 'string' || (d !== 'asc' && d !== 'desc') || badValue || !Number.isSafeInteger(id)) {
    throw invalidParameter('after', 'not a cursor from a Link header');
  }
  if (o !== orderby || d !== order) {
    throw invalidParameter('after',
      `this cursor was made for orderby=${o}&order=${d}; keep the same orderby and order while paging`);
  }
  return { orderby: o, order: d, value: value as string | number, id: id as number };
}
