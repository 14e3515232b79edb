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

// V8's heap, sized for what a long command holds. V8 lets its heap grow far past what is live before it collects
// (an import grew to ~340 MB, a server under list traffic to ~310 MB, with ~60 MB live), and heap flags can only be
// given when a process starts, so these commands run again as a child with them (docs/PERFORMANCE.md, issue 12).
// - import: 4 MB semi-spaces (the young generation) keep it near 260 MB at the same speed.
// - serve: the same, and an old generation of 96 MB plus the answer cache's bound (WAYPOST_CACHE_MAX_BYTES, whose
//   bodies live in that heap): 160 MB by default, under 200 MB RSS at the same throughput.
// Flags the operator gives (on the command line or in NODE_OPTIONS) win: then nothing is added.
// The cache's bound as the server reads it (src/config.ts); a bad setting is the child's to report.
const cacheMib = async () => {
  const { loadConfig } = await import(new URL('../dist/config.js', import.meta.url).href);
  try {
    return Math.ceil(loadConfig().cacheMaxBytes / (1024 * 1024));
  } catch {
    return 0;
  }
};
const heapFlags = {
  import: async () => ['--max-semi-space-size=4'],
  serve: async () => ['--max-semi-space-size=4', `--max-old-space-size=${96 + await cacheMib()}`],
}[process.argv[2]];
const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
if (heapFlags && !given.some((a) => /^--max-(semi|old)-space-size/.test(a))) {
  const { spawn } = await import('node:child_process');
  const { constants } = await import('node:os');
  const { fileURLToPath } = await import('node:url');
  const args = [...await heapFlags(), ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)];
  // The IPC channel tells the child when this process is gone (even SIGKILLed): it then stops as on SIGTERM.
  const child = spawn(process.execPath, args, { stdio: ['inherit', 'inherit', 'inherit', 'ipc'] });
  const forwarded = /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP']);
  for (const signal of forwarded) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0)));
} else {
  await import(entry.href);
}
