// What /readyz reports besides the database: each capability adds a named detail (the API: whether Redis is up),
// so the HTTP layer needs no knowledge of them. Details are reported; they do not decide readiness.
import type { Core } from './core.js';

type Detail = () => string | null;
const perCore = new WeakMap<Core, Map<string, Detail>>();

/** Adds `name` to /readyz; a detail that answers null is left out. */
export function addReadinessDetail(core: Core, name: string, detail: Detail): void {
  let details = perCore.get(core);
  if (!details) perCore.set(core, (details = new Map()));
  details.set(name, detail);
}

export function readinessDetails(core: Core): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, detail] of perCore.get(core) ?? []) {
    const value = detail();
    if (value !== null) out[name] = value;
  }
  return out;
}
