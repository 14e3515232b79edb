#!/usr/bin/env node
// The CLI runs the compiled build (made by `npm install` through the `prepare` script).
import { existsSync } from 'node:fs';
const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  const message = 'the build is missing; run `npm install` (or `npm run build`) first.';
  const json = process.argv.includes('--json');
  console.error(json ? JSON.stringify({ error: { code: 'build_missing', message } }) : `waypost: ${message}`);
  process.exit(1);
}
// An import allocates fast and briefly (lines, records, statements per batch): V8's default young generation let
// the process grow to ~340 MB; 4 MB semi-spaces keep it near 220 MB at the same speed. Flags must be set at start.
if (process.argv[2] === 'import' && !process.execArgv.some((a) => a.startsWith('--max-semi-space-size'))) {
  const { spawnSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const args = ['--max-semi-space-size=4', ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)];
  const run = spawnSync(process.execPath, args, { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}
await import(entry.href);
