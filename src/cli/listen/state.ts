// What `waypost listen` keeps between runs, per Waypost URL: the local signing secret (printed at start, the same
// every run, as `stripe listen`'s whsec_ is) and the last event handed on, so the next run resumes after it.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface ListenState {
  secret: string;
  lastEventId: string | null;
}

type StateFile = Record<string, ListenState>;

/** `$XDG_CONFIG_HOME/waypost/listen.json` (else `~/.config/…`); mode 0600: it holds a signing secret. */
export function defaultStatePath(env: Record<string, string | undefined>): string {
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'waypost', 'listen.json');
}

function readAll(path: string): StateFile {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as StateFile;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`cannot read ${path} (delete it to start afresh): ${(err as Error).message}`);
  }
}

/** This URL's state, made (with a new Standard Webhooks style secret) on first use. */
export function loadState(path: string, url: string): ListenState {
  return readAll(path)[url] ?? { secret: `whsec_${randomBytes(24).toString('base64')}`, lastEventId: null };
}

/** Written whole to a temporary file, then renamed: a Ctrl-C mid-write cannot leave half a file. */
export function saveState(path: string, url: string, state: ListenState): void {
  const all = readAll(path);
  all[url] = state;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}
