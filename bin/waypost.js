#!/usr/bin/env node
// The CLI runs the compiled build (made by `npm install` through the `prepare` script).
import { existsSync } from 'node:fs';
const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('waypost: the build is missing; run `npm install` (or `npm run build`) first.');
  process.exit(1);
}
await import(entry.href);
