// Aligned plain-text tables for the CLI's human output (`--json` prints the data instead), and option parsing.
import { InvalidArgumentError } from 'commander';

/** A cell's text: `-` for nothing. */
const shown = (v: string | number | boolean | null | undefined) =>
  (v === null || v === undefined || v === '' ? '-' : String(v));

/** Columns padded to their widest cell; an empty list prints `empty`. */
export function table(
  headers: string[], rows: Array<Array<string | number | null | undefined>>, empty = '(none)',
): string {
  if (rows.length === 0) return empty;
  const cells = [headers, ...rows.map((r) => r.map(shown))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n');
}

/** `key: value` lines with the keys aligned. */
export function fields(pairs: Array<[string, string | number | boolean | null | undefined]>): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${shown(v)}`).join('\n');
}

/** A commander option parser for a whole number from 1 to `max`. */
export function wholeNumber(max: number): (value: string) => number {
  return (value) => {
    const n = /^\d+$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n) || n < 1 || n > max) {
      throw new InvalidArgumentError(`Give a whole number from 1 to ${max}.`);
    }
    return n;
  };
}
