// Build step (npm run build, after vite): writes brotli and gzip copies beside the console's files (web/dist) and
// beside a copy of the API reference's Swagger UI bundle (dist/reference), for @fastify/static's preCompressed.
// Brotli at its best quality: it runs once per build, and browsers decode any quality as fast.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { CONSOLE_STAMP, consoleSourceHash } from './console-source.js';

// src/build/ and dist/build/ are both two levels below the package root.
const PACKAGE_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
export const CONSOLE_DIST = join(PACKAGE_ROOT, 'web', 'dist');
export const REFERENCE_DIST = join(PACKAGE_ROOT, 'dist', 'reference');
export const REFERENCE_ASSETS = ['swagger-ui-bundle.js', 'swagger-ui.css'] as const;
export const swaggerUiDir = () => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const COMPRESSIBLE = new Set(['.js', '.mjs', '.css', '.html', '.svg', '.json', '.txt', '.map', '.webmanifest']);
/** Below this a compressed copy saves less than a packet. */
const MIN_BYTES = 1024;

export const brotli = (data: Buffer) => brotliCompressSync(data, {
  params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
});
export const gzip = (data: Buffer) => gzipSync(data, { level: 9 });

/** Writes name.br and name.gz beside every compressible file of `dir` (recursively); returns the files done. */
export function precompressDir(dir: string): string[] {
  const done: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      done.push(...precompressDir(path));
      continue;
    }
    if (!COMPRESSIBLE.has(extname(name))) continue;
    const data = readFileSync(path);
    if (data.length < MIN_BYTES) continue;
    writeFileSync(`${path}.br`, brotli(data));
    writeFileSync(`${path}.gz`, gzip(data));
    done.push(path);
  }
  return done;
}

/** Copies the reference page's bundle out of swagger-ui-dist into dist/reference and compresses it. */
export function buildReferenceAssets(): string[] {
  mkdirSync(REFERENCE_DIST, { recursive: true });
  for (const a of REFERENCE_ASSETS) copyFileSync(join(swaggerUiDir(), a), join(REFERENCE_DIST, a));
  return precompressDir(REFERENCE_DIST);
}

export function precompressAll(): string[] {
  return [...(existsSync(CONSOLE_DIST) ? precompressDir(CONSOLE_DIST) : []), ...buildReferenceAssets()];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const done = precompressAll();
  // The source this build came from: the browser suites reuse the build while the source is unchanged.
  if (existsSync(CONSOLE_DIST)) writeFileSync(CONSOLE_STAMP, consoleSourceHash());
  process.stdout.write(`precompressed ${done.length} files (brotli and gzip)\n`);
}
