// A commit's source tree for a before/after in one run: `git archive` of the ref into the temp directory, run
// through tsx. Its node_modules links this checkout's packages one by one, and a dependency of that commit that
// this checkout no longer has is installed beside them (npm, once per tree), so nothing is built per commit.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..');

/** Symlinks in `to` for every package in `from` that `to` lacks (scoped packages one by one). */
function linkPackages(from: string, to: string) {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from)) {
    if (entry.startsWith('@')) linkPackages(join(from, entry), join(to, entry));
    else if (!existsSync(join(to, entry))) symlinkSync(join(from, entry), join(to, entry));
  }
}

export function beforeTree(ref: string): string {
  const sha = execFileSync('git', ['rev-parse', ref], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = join(tmpdir(), 'waypost-bench-tree', sha.slice(0, 12));
  if (existsSync(join(dir, '.ready'))) return dir;
  mkdirSync(dir, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${sha} | tar -x -C ${dir}`], { cwd: ROOT });
  const { dependencies = {} } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  const missing = Object.entries(dependencies).filter(([name]) => !existsSync(join(ROOT, 'node_modules', name)));
  if (missing.length > 0) {
    process.stderr.write(`${ref}: installing what this checkout lacks: ${missing.map(([n]) => n).join(', ')}\n`);
    const extra = join(dir, '.extra');
    mkdirSync(extra, { recursive: true });
    execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--ignore-scripts', '--prefix', extra,
      ...missing.map(([name, range]) => `${name}@${range}`)], { stdio: 'ignore' });
    linkPackages(join(extra, 'node_modules'), join(dir, 'node_modules'));
  }
  linkPackages(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  execFileSync('touch', [join(dir, '.ready')]);
  return dir;
}
