// What a run measured: the tools' versions and the plugin's files.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BRIDGE_DIR } from '../../test/bridge/wordpress.js';

export function version(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8' }).split('\n')[0].trim();
  } catch {
    return 'unknown';
  }
}

/** The plugin as this run uses it (WordPress links the working tree's copy): a hash of its files, and git's view. */
export function pluginState() {
  const files = (readdirSync(BRIDGE_DIR, { recursive: true }) as string[]).filter((f) => f.endsWith('.php')).sort();
  const hash = createHash('sha256');
  for (const f of files) hash.update(f).update(readFileSync(path.join(BRIDGE_DIR, f)));
  const git = (args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: BRIDGE_DIR, encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  };
  return {
    commit: git(['rev-parse', '--short', 'HEAD']),
    uncommitted_changes: git(['status', '--porcelain', '--', '.']) !== '',
    sha256: hash.digest('hex').slice(0, 16),
  };
}
