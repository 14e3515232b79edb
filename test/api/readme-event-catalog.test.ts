// The event tables of docs/webhooks.md against the catalog they document (src/webhooks/catalog.ts, which the
// console, the CLI and the OpenAPI `webhooks` section are built from): any type, label or description that drifts
// fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/admin/console.js';
import { EVENT_FIRES_WHEN, EVENT_TYPES } from '../../src/webhooks/catalog.js';

const WEBHOOKS_DOC = readFileSync(join(PACKAGE_ROOT, 'docs/webhooks.md'), 'utf8');

/** The cells of the first Markdown table after the line starting with `marker` (header and rule left out). */
function tableAfter(marker: string): string[][] {
  const lines = WEBHOOKS_DOC.split('\n');
  const start = lines.findIndex((l) => l.startsWith(marker));
  expect(start, `docs/webhooks.md has no line starting with ${marker}`).toBeGreaterThanOrEqual(0);
  const first = lines.findIndex((l, i) => i > start && l.startsWith('|'));
  const rows: string[][] = [];
  for (let i = first + 2; i < lines.length && lines[i].startsWith('|'); i++) {
    rows.push(lines[i].slice(1, -1).split(' | ').map((c) => c.trim()));
  }
  return rows;
}
const unquote = (cell: string) => cell.replace(/^`|`$/g, '');

describe('the event tables of docs/webhooks.md', () => {
  it('"Events" under Webhook delivery: every type, in order, firing when the catalog says', () => {
    const rows = tableAfter('### Events');
    expect(rows.map((r) => unquote(r[0]))).toEqual(EVENT_TYPES.map((t) => t.type));
    for (const [type, firesWhen] of rows) {
      expect(firesWhen, type).toBe(EVENT_FIRES_WHEN[unquote(type) as keyof typeof EVENT_FIRES_WHEN]);
    }
  });

  it('"Event types" under Webhooks: the console\'s labels and descriptions', () => {
    const rows = tableAfter('Event types (');
    const documented = rows.map(([type, label, description]) => ({ type: unquote(type), label, description }));
    expect(documented).toEqual(EVENT_TYPES);
  });
});
