// axe-core in the page under test: its source is evaluated in the page (no CDN, no extension), then `axe.run`
// checks the rendered document the way the accessibility reviewers' tools do.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string; summary: string }[];
}

/** Every axe violation on the page as it is now (WCAG 2.x A/AA and best practices, axe's defaults). */
export async function axeViolations(page: Page): Promise<Violation[]> {
  // Evaluated over the DevTools protocol, which the console's CSP (no inline scripts) does not apply to.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    type Axe = { run: (ctx: Document, opts: object) => Promise<{ violations: AxeResult[] }> };
    type AxeNode = { target: unknown[]; failureSummary?: string };
    type AxeResult = { id: string; impact: string | null; help: string; nodes: AxeNode[] };
    const axe = (window as unknown as { axe: Axe }).axe;
    const { violations } = await axe.run(document, { resultTypes: ['violations'] });
    return violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({
        target: n.target.join(' '),
        summary: (n.failureSummary ?? '').split('\n')[1]?.trim() ?? '',
      })),
    }));
  });
}

/** Violations as a person reads them in a failed test's output. */
export function describeViolations(state: string, width: number, violations: Violation[]): string {
  return violations.map((v) => `${state} @ ${width}px: [${v.impact}] ${v.id}: ${v.help}\n`
    + v.nodes.map((n) => `    ${n.target}  ${n.summary}`).join('\n')).join('\n');
}
