// Whether webhooks may target private addresses (localhost, 127.0.0.1, a LAN): for local development only. One
// stored setting decides it for every process on the database (the server, its workers, the CLI), so
// `waypost webhooks create/test` accept what the console's Send test accepts; WAYPOST_ALLOW_PRIVATE_TARGETS=true in
// a process's environment still allows them in that process. Set from the server's shell only
// (`waypost settings set --allow-private-targets`): the console shows it but cannot change it, since the guard is
// there to keep people who manage webhooks (a WordPress admin signed in through the bridge) off the server's network.
import { recordAudit, type Actor } from '../audit/record.js';
import type { Core } from '../core.js';
import type { Config } from '../config.js';
import { readSetting, writeSetting } from '../store/settings.js';

export const ALLOW_PRIVATE_TARGETS_SETTING = 'allow_private_targets';
/** What the refusal tells a developer to run. */
export const ALLOW_PRIVATE_TARGETS_COMMAND = 'npx waypost settings set --allow-private-targets true';

export interface PrivateTargets {
  allowed: boolean;
  /** environment: WAYPOST_ALLOW_PRIVATE_TARGETS=true in this process; setting: the stored setting; off: refused. */
  source: 'environment' | 'setting' | 'off';
}

// The delivery path asks on every send, synchronously: it reads the last value read, and a value older than
// REFRESH_MS starts a read in the background, so a change made by another process counts within seconds.
const REFRESH_MS = 5_000;

interface Known {
  allowed: boolean;
  readAt: number;
  reading: Promise<boolean> | null;
  read: () => Promise<boolean>;
}

const known = new WeakMap<Config, Known>();

async function storedSetting(core: Core): Promise<boolean> {
  return (await readSetting(core.db, ALLOW_PRIVATE_TARGETS_SETTING)) === 'true';
}

function refresh(entry: Known): Promise<boolean> {
  entry.reading ??= entry.read().then((allowed) => {
    entry.allowed = allowed;
    entry.readAt = Date.now();
    return allowed;
  }).finally(() => { entry.reading = null; });
  return entry.reading;
}

/** Lets this process's sends follow the stored setting (called once per Waypost, when webhooks are installed). */
export function watchPrivateTargets(core: Core): void {
  const entry: Known = { allowed: false, readAt: 0, reading: null, read: () => storedSetting(core) };
  known.set(core.config, entry);
  // A database that is not there yet (or a closed one) is the setting's default: refused.
  refresh(entry).catch(() => {});
}

/** The setting as it stands now, read from the database (save-time checks, Send test, the settings page). */
export async function readPrivateTargets(core: Core): Promise<PrivateTargets> {
  if (core.config.allowPrivateTargets) return { allowed: true, source: 'environment' };
  const allowed = await storedSetting(core); // fresh: a background read may have started before a change
  const entry = known.get(core.config);
  if (entry) Object.assign(entry, { allowed, readAt: Date.now() });
  return { allowed, source: allowed ? 'setting' : 'off' };
}

/**
 * Stores the setting; every process on the database follows within seconds. A change is recorded in the audit log
 * with it, when an actor is given (src/audit/).
 */
export async function setPrivateTargets(core: Core, allowed: boolean, actor?: Actor): Promise<PrivateTargets> {
  await core.db.transaction().execute(async (trx) => {
    const was = (await readSetting(trx, ALLOW_PRIVATE_TARGETS_SETTING)) === 'true';
    await writeSetting(trx, ALLOW_PRIVATE_TARGETS_SETTING, allowed ? 'true' : null);
    if (was !== allowed) {
      await recordAudit(core, actor, { action: 'settings.changed', targetType: 'settings', targetId: null,
        details: { fields: ['allow_private_targets'] } }, trx);
    }
  });
  return readPrivateTargets(core);
}

/** For the send path: the environment's answer, else the last value read (refreshed in the background). */
export function privateTargetsAllowed(config: Config): boolean {
  if (config.allowPrivateTargets) return true;
  const entry = known.get(config);
  if (!entry) return false;
  if (Date.now() - entry.readAt > REFRESH_MS && !entry.reading) refresh(entry).catch(() => {});
  return entry.allowed;
}
