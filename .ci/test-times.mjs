// Per-file wall times from vitest's JSON report (written under CI=true to test-results/vitest.json), slowest first,
// as a Markdown table for docs/TESTING.md: `node .ci/test-times.mjs [report.json] [rows]`.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const file = process.argv[2] ?? 'test-results/vitest.json';
const rows = Number(process.argv[3] ?? 200);
/**
 * @type {{ startTime: number, numTotalTests: number, numPassedTests: number, numFailedTests: number,
 *   numPendingTests: number, numTodoTests?: number, testResults: Array<{ name: string, startTime: number,
 *   endTime: number, assertionResults: Array<{ status: string }> }> }}
 */
const report = JSON.parse(readFileSync(file, 'utf8'));
const files = report.testResults.map((r) => ({
  name: relative(process.cwd(), r.name),
  seconds: (r.endTime - r.startTime) / 1000,
  tests: r.assertionResults.length,
  failed: r.assertionResults.filter((a) => a.status === 'failed').length,
})).sort((a, b) => b.seconds - a.seconds);
const sum = files.reduce((s, f) => s + f.seconds, 0);
const wall = (Math.max(...report.testResults.map((r) => r.endTime)) - report.startTime) / 1000;
console.log(`${files.length} files, ${report.numTotalTests} tests (${report.numPassedTests} passed, `
  + `${report.numFailedTests} failed, ${report.numPendingTests + (report.numTodoTests ?? 0)} skipped); `
  + `sum of file times ${sum.toFixed(0)} s, wall ${wall.toFixed(0)} s\n`);
console.log('| file | tests | seconds |\n|---|---:|---:|');
for (const f of files.slice(0, rows)) {
  console.log(`| \`${f.name}\` | ${f.tests}${f.failed ? ` (${f.failed} failed)` : ''} | ${f.seconds.toFixed(1)} |`);
}
