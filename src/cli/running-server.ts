// Where the last server started on a database listens, recorded in that database's settings: `waypost demo` (and
// anything else started without the server's PORT or HOST) finds a running server there instead of guessing 8080.
import type { Core } from '../core.js';
import { readSetting, writeSetting } from '../store/settings.js';

const SERVER_URL_SETTING = 'server_url';

/** The address to reach a listening server at: a wildcard host (0.0.0.0, ::) is reached on the loopback. */
export function reachableUrl(listening: string): string {
  const url = new URL(listening);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  if (url.hostname === '[::]') url.hostname = '[::1]';
  return url.origin;
}

/** Called by `serve` once it listens. */
export async function recordServerUrl(core: Core, listening: string): Promise<void> {
  await writeSetting(core.db, SERVER_URL_SETTING, reachableUrl(listening));
}

/** The URL the last server on this database listened at, if one ever did (it may have stopped since). */
export async function recordedServerUrl(core: Core): Promise<string | null> {
  return readSetting(core.db, SERVER_URL_SETTING);
}
