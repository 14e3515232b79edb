// The searches a probe found common (search-anchor.ts), remembered a while per Core (`core.knownCommon`): the probe of
// a common search is most of its list's cost, and a client paging through a search or polling it asks the same.
import { KNOWN_COMMON_MAX, KNOWN_COMMON_MS } from './list-tuning.js';

export class KnownCommonSearches {
  /** `resource NUL needle` → until when it counts as known common, oldest first. */
  private readonly until = new Map<string, number>();

  /** Whether a probe found the search common less than KNOWN_COMMON_MS before `now`. */
  has(resource: string, needle: string, now: number): boolean {
    return (this.until.get(key(resource, needle)) ?? 0) > now;
  }

  /** Forgets every search (an erasure: a remembered search text could be a person's name). */
  clear(): void {
    this.until.clear();
  }

  /** What a probe of the whole search found: common (remembered from `now`, as the newest), or not (forgotten). */
  record(resource: string, needle: string, common: boolean, now: number): void {
    const k = key(resource, needle);
    this.until.delete(k); // re-inserted last when still common
    if (!common) return;
    this.until.set(k, now + KNOWN_COMMON_MS);
    if (this.until.size > KNOWN_COMMON_MAX) this.until.delete(this.until.keys().next().value!);
  }
}

const key = (resource: string, needle: string) => `${resource}\u0000${needle}`;
