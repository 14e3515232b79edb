// Run as a process by messages.test.ts: `waypost --help` (through run(), as main.ts runs it), then prints the packages
// the process loaded from node_modules, as JSON. The CommonJS ones are in require.cache (a CommonJS package imported
// from an ES module is loaded through it too): fastify, both database drivers, Redis, SMTP, undici among them.
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { run } from '../../src/cli/run.js';

const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
const args = process.argv.slice(2);
const code = await run(args.length ? args : ['--help'], { stdout: sink, stderr: sink, env: {} });
const loaded = Object.keys(createRequire(import.meta.url).cache)
  .map((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1])
  .filter((name): name is string => name !== undefined);
process.stdout.write(`${JSON.stringify({ code, packages: [...new Set(loaded)].sort() })}\n`);
