// Reading the project's Markdown as GitHub renders it: the anchors its headings get, the links it holds (outside
// code), and the `waypost …` command lines of its shell blocks. Used by test/docs/links.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = new URL('../../', import.meta.url).pathname;

/** README.md and every docs/*.md, as paths relative to the repository's root. */
export function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

export const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The lines of `md` outside fenced code blocks, each with its 1-based number. */
function prose(md: string): { line: string; n: number }[] {
  let fenced = false;
  return md.split('\n').flatMap((line, i) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [{ line, n: i + 1 }];
  });
}

/**
 * GitHub's heading anchor (github-slugger): the heading's text as rendered (links and images keep their text, code
 * its content), lower-cased, every character that is not a letter, mark, digit, connector, space or hyphen dropped,
 * spaces turned into hyphens.
 */
export function slug(heading: string): string {
  const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').trim().toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** Every anchor a page has: its headings' slugs (a repeated one gets -1, -2, … as on GitHub) and HTML ids. */
export function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const { line } of prose(md)) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      found.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const [, id] of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(id);
  }
  return found;
}

export interface Link { file: string; line: number; target: string }

/** The inline links and images of a page outside code (blocks and spans, which may wrap), with where they are. */
export function links(file: string, md: string): Link[] {
  const lines = md.split('\n').map(() => '');
  for (const { line, n } of prose(md)) lines[n - 1] = line;
  // A code span ends at its paragraph's end at the latest; its newlines stay, so line numbers do too.
  const text = lines.join('\n').replace(/`(?:[^`\n]|\n(?!\s*\n))*`/g, (span) => span.replace(/[^\n]/g, ''));
  return text.split('\n').flatMap((line, i) =>
    [...line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => ({ file, line: i + 1, target: m[1] })));
}

export interface Command { file: string; line: number; text: string }

/**
 * The `waypost …` commands of a page's shell blocks (sh, bash, shell), continuation lines joined: each starts at
 * `waypost` (run as `npx waypost`, or `waypost` at the start of a line; `wp waypost` is WP-CLI, not ours) and ends
 * at what the shell or the page's style ends it with: a comment (two spaces or ` #`), `)`, ` | `, ` > `, `;`, `&&`.
 */
export function commands(file: string, md: string): Command[] {
  const found: Command[] = [];
  let shell = false;
  let fenced = false;
  const lines = md.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const fence = /^\s*```(\w*)/.exec(lines[i]);
    if (fence) {
      fenced = !fenced;
      shell = fenced && ['sh', 'bash', 'shell'].includes(fence[1]);
      continue;
    }
    if (!shell) continue;
    const start = i;
    let line = lines[i];
    while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++i].trim()}`;
    for (const m of line.matchAll(/(?:^|npx )waypost /g)) {
      const rest = line.slice(m.index + m[0].length);
      found.push({ file, line: start + 1, text: rest.split(/ {2,}| #|\)| \| | > |;|&&/)[0].trim() });
    }
  }
  return found;
}

/** A command line's words as the shell splits them (single and double quotes; no expansion). */
export function words(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}
