// The layout rule for the WordPress bridge's files (PHP, JS, CSS): at most 300 lines, as for TypeScript, with no
// exception (the mapper, the backfill, the queue and the client were split by role to get there).
// Line length is phpcs's (integrations/wordpress/phpcs.xml.dist: over 120 characters is a warning, since a
// translatable string stays one literal).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BRIDGE_DIR } from './wordpress.js';

const MAX_LINES = 300;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(php|js|css)$/.test(name) ? [path] : [];
  });
}

describe('WordPress bridge layout', () => {
  it(`keeps every file at most ${MAX_LINES} lines`, () => {
    const over = files(BRIDGE_DIR).flatMap((path) => {
      const name = relative(BRIDGE_DIR, path);
      const lines = readFileSync(path, 'utf8').split('\n').length - 1;
      return lines > MAX_LINES ? [`${name}: ${lines} lines (at most ${MAX_LINES})`] : [];
    });
    expect(over).toEqual([]);
  });
});
