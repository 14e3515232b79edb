// The documentation holds together: every relative link and #anchor in README.md and docs/*.md resolves (GitHub's
// anchor rules), the README is a landing page that opens with the two commands, docs/ARCHITECTURE.md names the real
// layout in small tables, and the `waypost …` command lines of the docs' shell blocks still run. Which commands are
// checked, and how:
// - every one: each word that names a subcommand must be one (`waypost <group> <command> --help` prints its usage),
//   and every `--option` the line uses must be in that command's help;
// - those in RUN_AS_WRITTEN (they need no server, no prompt and no placeholder): run as written, in this process
//   (test/cli/run.ts), one after another on a temporary SQLite file, and must exit 0.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempSqliteUrl } from '../cli/run.js';
import { anchors, commands, links, markdownFiles, read, ROOT, words, type Command } from './markdown.js';

const FILES = markdownFiles();

/** Where a link points, or what is wrong with it. */
function brokenLink(file: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // http:, https:, mailto:: not ours to check
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const resolved = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
  if (resolved.startsWith('..')) return `${target} leaves the repository`;
  if (!existsSync(join(ROOT, resolved))) return `${target}: there is no ${resolved}`;
  if (anchor === undefined) return null;
  if (!resolved.endsWith('.md') || statSync(join(ROOT, resolved)).isDirectory()) return `${target}: not a page`;
  return anchors(read(resolved)).has(anchor) ? null : `${target}: ${resolved} has no heading #${anchor}`;
}

describe('links in README.md and docs/*.md', () => {
  it('finds the pages and their links', () => {
    expect(FILES).toContain('docs/webhooks.md');
    expect(FILES.flatMap((file) => links(file, read(file))).length).toBeGreaterThan(100);
  });

  it.each(FILES)('every relative link and anchor of %s resolves', (file) => {
    const broken = links(file, read(file)).flatMap((link) => {
      const problem = brokenLink(file, link.target);
      return problem ? [`${file}:${link.line}: ${problem}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it('anchors follow GitHub: punctuation dropped, spaces to hyphens, repeats numbered', () => {
    const page = '# Bulk import: `waypost import FILE.ndjson`\n## Troubleshooting\n### Troubleshooting\n' +
      '```sh\n# not a heading\n```\n## Throttle (for small receivers) — and more';
    expect([...anchors(page)]).toEqual(['bulk-import-waypost-import-filendjson', 'troubleshooting',
      'troubleshooting-1', 'throttle-for-small-receivers--and-more']);
  });
});

describe('the README', () => {
  it('opens with the two commands: npm install && npm start, then npm test', () => {
    const [title, blank, fence, start, test] = read('README.md').split('\n');
    expect([title, blank, fence]).toEqual(['# Waypost', '', '```sh']);
    expect(start).toMatch(/^npm install && npm start\s+#/);
    expect(test).toMatch(/^npm test\s+#/);
  });

  it('is a landing page of at most 300 lines that links every page of docs/', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(300);
    const linked = new Set(links('README.md', read('README.md')).map((link) => link.target.split('#')[0]));
    expect(FILES.filter((file) => file !== 'README.md' && !linked.has(file))).toEqual([]);
  });
});

describe('docs/ARCHITECTURE.md', () => {
  const architecture = read('docs/ARCHITECTURE.md');

  it('names every folder of src/, and every path it names exists', () => {
    const folders = readdirSync(join(ROOT, 'src')).filter((name) => statSync(join(ROOT, 'src', name)).isDirectory());
    expect(folders.filter((folder) => !architecture.includes(`\`src/${folder}/\``))).toEqual([]);
    const paths = [...architecture.matchAll(/`((?:src|web|bench|test|integrations|bin)\/[^`\s<*]*)`/g)]
      .map((m) => m[1]).filter((path) => !path.startsWith('web/dist'));
    expect(paths.length).toBeGreaterThan(30);
    expect(paths.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  it('reads as prose and small tables: no table cell over 400 characters', () => {
    const cells = architecture.split('\n').filter((line) => line.startsWith('|'))
      .flatMap((line) => line.split(' | ')).filter((cell) => cell.length > 400);
    expect(cells).toEqual([]);
  });
});

/** Documented commands run as written: no server, no prompt, no placeholder; in this order on one database. */
const RUN_AS_WRITTEN = [
  'migrate',
  'keys create --label "Partner site" --permissions bookings.list,bookings.read,trips.list --json',
  'deliveries list',
  'alerts list',
  'audit list --action key.deleted',
  'admin create --email ci@example.com --password \'long-enough-secret\'',
  'admin token',
  'admin token --rotate',
  'host-token --rotate',
];

/** The words of a usage line before its arguments: `Usage: waypost webhooks show|get [options] <id>` → names. */
function usagePath(help: string): string[][] {
  const usage = /^Usage: waypost(.*)$/m.exec(help)?.[1] ?? '';
  const names: string[][] = [];
  for (const word of usage.trim().split(/\s+/)) {
    if (!word || /^[[<]/.test(word)) break;
    names.push(word.split('|'));
  }
  return names;
}

/** The subcommands a documented line names, and the help of the last one. */
async function resolveCommand(argv: string[]): Promise<{ path: string[]; help: string }> {
  let path: string[] = [];
  let help = (await runCli(['--help'], {})).stdout;
  for (const word of argv) {
    if (word.startsWith('-')) break;
    const tried = await runCli([...path, word, '--help'], {});
    const names = usagePath(tried.stdout);
    const named = tried.code === 0 && names.length === path.length + 1 && names[path.length].includes(word);
    if (!named) break;
    path = [...path, word];
    help = tried.stdout;
  }
  return { path, help };
}

describe('the waypost commands shown in the docs', () => {
  const documented: Command[] = FILES.flatMap((file) => commands(file, read(file)));

  it('are found (each page\'s shell blocks)', () => {
    expect(documented.length).toBeGreaterThan(40);
    expect(documented.map((c) => c.text)).toContain('webhooks rotate-secret wh_01a2… --grace 30m');
  });

  it('name real commands and only options those commands have', async () => {
    const problems: string[] = [];
    for (const command of documented) {
      const argv = words(command.text);
      const { path, help } = await resolveCommand(argv);
      const where = `${command.file}:${command.line}: waypost ${command.text}`;
      if (path.length === 0 && argv.length > 0 && !argv[0].startsWith('-')) problems.push(`${where}: no such command`);
      const options = argv.slice(path.length).flatMap((word) => [...word.matchAll(/(?:^|\[)(--[a-z][a-z0-9-]*)/g)])
        .map((m) => m[1]);
      for (const option of options) {
        if (!new RegExp(`${option}(?![a-z0-9-])`).test(help)) problems.push(`${where}: ${option} is not an option`);
      }
    }
    expect(problems).toEqual([]);
  }, 60_000);

  describe('run as written', () => {
    let env: Record<string, string>;
    beforeAll(() => { env = { DATABASE_URL: tempSqliteUrl() }; });

    it.each(RUN_AS_WRITTEN)('waypost %s', async (text) => {
      expect(documented.map((c) => c.text), 'shown in a shell block of the docs').toContain(text);
      const result = await runCli(words(text), env);
      // Tokens go to stdout and a note about them to stderr; a failure is a `waypost: …` line and a non-zero code.
      expect(result.stderr).not.toMatch(/^waypost:/m);
      expect(result.code, result.stderr).toBe(0);
    }, 30_000);
  });
});
