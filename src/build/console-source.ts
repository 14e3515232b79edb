// Which console source web/dist was built from: `npm run build` writes a hash of web/ (all but its build) into
// web/dist/.source-hash, so the browser suites reuse that build instead of building the same source again.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// src/build/ and dist/build/ are both two levels below the package root.
const WEB = join(resolve(fileURLToPath(new URL('.', import.meta.url)), '../..'), 'web');
export const CONSOLE_STAMP = join(WEB, 'dist', '.source-hash');

/** A hash of the console's source (everything in web/ but its build and node_modules). */
export function consoleSourceHash(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (dir === WEB && (name === 'dist' || name === 'node_modules')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else hash.update(path).update(readFileSync(path));
    }
  };
  walk(WEB);
  return hash.digest('hex');
}
