// The layout rules (docs/ARCHITECTURE.md): the folders of src/ import one another as a DAG (src/store/tables.ts's
// type-only imports of the capabilities' tables.ts are the one exception), no file of src/ imports itself through
// others (type-only imports included), no source file in src/, web/src/, bench/ or test/ is over 300 lines or has a
// line over 120 characters, and only src/store/ and the delivery queue ask which database they run on.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
/** Every folder of src/: the capabilities, and the infrastructure (store, build) they share. */
const FOLDERS = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isDirectory());
const STORE_TABLES = join(SRC, 'store/tables.ts');

function files(dir: string, ext = /\.ts$/): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'results') return [];
    return statSync(path).isDirectory() ? files(path, ext) : ext.test(name) ? [path] : [];
  });
}

interface Edge { from: string; to: string; file: string; line: string }

/** Imports from one folder of src/ into another (type-only imports count: they tie the folders together too). */
function folderImports(): Edge[] {
  return files(SRC).flatMap((file) => {
    const from = relative(SRC, file).split('/')[0];
    if (!FOLDERS.includes(from)) return [];
    return [...readFileSync(file, 'utf8').matchAll(/^.*from '(\.[^']+)'.*$/gm)].flatMap(([line, spec]) => {
      const to = relative(SRC, resolve(dirname(file), spec)).split('/')[0];
      return to !== from && FOLDERS.includes(to) ? [{ from, to, file: relative(SRC, file), line }] : [];
    });
  });
}

/** Every import of a file of src/ by another (`from '…'`, `import '…'`, `import('…')`; type-only ones too). */
function fileGraph(): Map<string, Set<string>> {
  const all = files(SRC, /\.tsx?$/);
  const known = new Set(all);
  const target = (file: string, spec: string) => {
    const base = resolve(dirname(file), spec).replace(/\.js$/, '');
    return [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((path) => known.has(path));
  };
  return new Map(all.map((file) => {
    const specs = [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) => m[1]);
    const to = specs.map((spec) => target(file, spec)).filter((path): path is string => path !== undefined);
    return [relative(SRC, file), new Set(to.map((path) => relative(SRC, path)))];
  }));
}

/**
 * The circles of a graph: each strongly connected component of more than one node (or a node importing itself),
 * its nodes sorted (Tarjan's algorithm: linear, where listing every cycle of a file graph could take exponential
 * time).
 */
function circles(graph: Map<string, Set<string>>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do component.push(member = stack.pop()!); while (member !== node);
    if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort().join(' ⇄ '));
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found.sort();
}

/** The store's one exception: its Database type is the sum of the capabilities' table types. */
const storeException = (e: Edge) => e.file === relative(SRC, STORE_TABLES)
  && /^import type \{[^}]*\} from '\.\.\/[a-z]+\/tables\.js';$/.test(e.line);

/** folder → the folders its files import, without the store's exception. */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map(FOLDERS.map((c) => [c, new Set<string>()]));
  for (const e of folderImports()) if (!storeException(e)) graph.get(e.from)!.add(e.to);
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

/**
 * Test files still over the limits. console.e2e.test.ts (408 lines, each test building on the state the one before
 * left: the admin signed in, the webhooks and keys it made) is to be split by topic with a shared world.
 */
const TOO_LONG_FOR_NOW = ['test/console/console.e2e.test.ts'];

/** `file: N lines` for a file over 300 lines, `file:line: N characters` for a line over 120. */
function tooLong(paths: string[]): string[] {
  return paths.flatMap((file) => {
    const lines = readFileSync(file, 'utf8').replace(/\n$/, '').split('\n'); // the last line's newline ends it
    const long = lines.map((l, i) => [l.length, i + 1] as const).filter(([n]) => n > 120);
    return [
      ...(lines.length > 300 ? [`${relative(ROOT, file)}: ${lines.length} lines`] : []),
      ...long.map(([n, at]) => `${relative(ROOT, file)}:${at}: ${n} characters`),
    ];
  });
}

describe('layout', () => {
  it('the cycle finder sees a cycle', () => {
    expect(cycles(new Map([['a', new Set(['b'])], ['b', new Set(['a'])]]))).toEqual(['a → b → a']);
  });

  it('the circle finder sees a circle of files, and one of a file with itself', () => {
    const graph = new Map([['a.ts', new Set(['b.ts'])], ['b.ts', new Set(['c.ts'])], ['c.ts', new Set(['a.ts'])],
      ['d.ts', new Set(['d.ts', 'a.ts'])], ['e.ts', new Set(['a.ts'])]]);
    expect(circles(graph)).toEqual(['a.ts ⇄ b.ts ⇄ c.ts', 'd.ts']);
  });

  it('sees every capability folder and the store', () => {
    const expected = ['admin', 'alerts', 'api', 'cli', 'demo', 'host', 'http', 'records', 'store', 'webhooks'];
    expect(FOLDERS).toEqual(expect.arrayContaining(expected));
  });

  it('has no import cycle between the folders of src/', () => {
    expect(cycles(folderGraph())).toEqual([]);
  });

  it('has no import circle between the files of src/, type-only imports included', () => {
    const graph = fileGraph();
    expect(graph.get('api/list.ts')).toContain('core.ts'); // it reads the imports
    expect(circles(graph)).toEqual([]);
  });

  it('lets the store import capabilities only for the table types of src/store/tables.ts', () => {
    const fromStore = folderImports().filter((e) => e.from === 'store');
    expect(fromStore.filter((e) => !storeException(e)).map((e) => `${e.file}: ${e.line}`)).toEqual([]);
    // The exception is what it says: type-only imports of the capabilities' tables.
    expect(fromStore.map((e) => e.to).sort())
      .toEqual(['admin', 'alerts', 'api', 'audit', 'feed', 'privacy', 'webhooks']);
  });

  it('keeps src/http/ and src/alerts/ leaves, and admin above the capabilities it configures', () => {
    const graph = folderGraph();
    // src/app.ts, the composition root, mounts the routes; http/ is what every capability may import.
    expect([...graph.get('http')!].filter((to) => to !== 'store')).toEqual([]);
    const intoAdmin = folderImports().filter((e) => e.to === 'admin' && e.from !== 'cli' && !storeException(e));
    expect(intoAdmin.map((e) => `${e.file}: ${e.line}`)).toEqual([]);
    expect([...graph.get('alerts')!].filter((to) => to !== 'store')).toEqual([]);
  });

  it('keeps every file in src/, web/src/, bench/ and test/ under 300 lines of at most 120 characters', () => {
    const sources = [...files(SRC), ...files(join(ROOT, 'web/src'), /\.tsx?$/), ...files(join(ROOT, 'bench')),
      ...files(join(ROOT, 'test'), /\.tsx?$/)];
    const over = tooLong(sources);
    expect(over.filter((line) => !TOO_LONG_FOR_NOW.some((file) => line.startsWith(`${file}:`)))).toEqual([]);
    // An exception that no longer applies is dropped from the list, so that it cannot hide a new long line.
    expect(TOO_LONG_FOR_NOW.filter((file) => !over.some((line) => line.startsWith(`${file}:`)))).toEqual([]);
  });

  it('asks which database it runs on only in src/store/ and src/webhooks/delivery/queue/', () => {
    // The store answers what differs (`core.store.sql`). The delivery queue is the one exception: its two backends
    // (queue/sqlite.ts, queue/postgres.ts) are whole implementations of its seam, picked once in queue/index.ts, and
    // run on the store's connections themselves (SQLite's writer thread, PostgreSQL's pools).
    const owners = [join(SRC, 'store'), join(SRC, 'webhooks/delivery/queue')];
    // Comparing the dialect's name, or testing for one database's connection (the SQLite connection or its writer
    // thread, the PostgreSQL pools), is a fork; reporting the name is not.
    const fork = /dialect\s*[!=]==|store\.(sqlite|writer|pg)\b|dialectOf\(/;
    const outside = files(SRC).filter((file) => !owners.some((dir) => file.startsWith(dir + '/')));
    const forks = outside.flatMap((file) => readFileSync(file, 'utf8').split('\n')
      .flatMap((line, i) => (fork.test(line) ? [`${relative(SRC, file)}:${i + 1}`] : [])));
    expect(forks).toEqual([]);
  });
});
