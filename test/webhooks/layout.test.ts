// The layout rules (docs/ARCHITECTURE.md): no import cycle between capability folders, the delivery engine's
// files stay readable (at most 300 lines, no line over 120 characters), and only src/store/ and the delivery queue
// ask which database they run on.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
const CAPABILITIES = ['admin', 'alerts', 'api', 'cli', 'demo', 'host', 'http', 'records', 'webhooks'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** capability → the capabilities its files import (type-only imports count: they tie the folders together too). */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map(CAPABILITIES.map((c) => [c, new Set<string>()]));
  for (const file of files(SRC)) {
    const from = relative(SRC, file).split('/')[0];
    if (!graph.has(from)) continue;
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      const to = relative(SRC, resolve(dirname(file), spec)).split('/')[0];
      if (to !== from && graph.has(to)) graph.get(from)!.add(to);
    }
  }
  return graph;
}

function cycles(graph: Map<string, Set<string>>): string[] {
  const found: string[] = [];
  const walk = (node: string, path: string[]) => {
    for (const next of graph.get(node) ?? []) {
      if (next === path[0]) found.push([...path, next].join(' → '));
      else if (!path.includes(next) && next > path[0]) walk(next, [...path, next]);
    }
  };
  for (const start of graph.keys()) walk(start, [start]);
  return found;
}

describe('layout', () => {
  it('the cycle finder sees a cycle', () => {
    expect(cycles(new Map([['a', new Set(['b'])], ['b', new Set(['a'])]]))).toEqual(['a → b → a']);
  });

  it('webhooks, alerts and admin import one way: admin → webhooks → alerts', () => {
    const graph = folderGraph();
    expect([...graph.get('alerts')!]).toEqual([]);
    expect(graph.get('webhooks')!.has('admin')).toBe(false);
    expect(cycles(new Map(['admin', 'alerts', 'webhooks'].map((c) => [c, graph.get(c)!])))).toEqual([]);
  });

  it('has no import cycle through webhooks or alerts', () => {
    // (admin, api, host and http still import each other; those folders are outside the delivery engine.)
    const through = cycles(folderGraph()).filter((c) => /webhooks|alerts/.test(c));
    expect(through).toEqual([]);
  });

  it('keeps the delivery engine files under 300 lines of at most 120 characters', () => {
    const engine = [...files(join(SRC, 'webhooks')), ...files(join(SRC, 'alerts')), join(SRC, 'config.ts'), join(SRC, 'core.ts')];
    const over = engine.flatMap((file) => {
      const lines = readFileSync(file, 'utf8').split('\n');
      const long = lines.map((l, i) => [l.length, i + 1] as const).filter(([n]) => n > 120);
      return [
        ...(lines.length > 300 ? [`${relative(SRC, file)}: ${lines.length} lines`] : []),
        ...long.map(([n, at]) => `${relative(SRC, file)}:${at}: ${n} characters`),
      ];
    });
    expect(over).toEqual([]);
  });

  it('asks which database it runs on only in src/store/ and src/webhooks/delivery/queue/', () => {
    const owners = [join(SRC, 'store'), join(SRC, 'webhooks/delivery/queue')];
    // Comparing the dialect's name, or reaching for the SQLite connection, is a fork; reporting the name is not.
    const fork = /dialect\s*[!=]==|store\.sqlite\b|dialectOf\(/;
    const outside = files(SRC).filter((file) => !owners.some((dir) => file.startsWith(dir + '/')));
    const forks = outside.flatMap((file) => readFileSync(file, 'utf8').split('\n')
      .flatMap((line, i) => (fork.test(line) ? [`${relative(SRC, file)}:${i + 1}`] : [])));
    expect(forks).toEqual([]);
  });
});
