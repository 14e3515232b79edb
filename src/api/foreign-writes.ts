// Notices what other connections changed in the same SQLite file: a `waypost import`, `waypost keys disable` run
// beside the server, a second server process without Redis. The API polls once per request, before it trusts
// anything it holds in memory (cached answers, API keys). `PRAGMA data_version` tells, for the price of a pragma,
// whether any other connection committed at all; only then are the change counters read (migration 0005,
// bumped by triggers), which tell what changed: the delivery worker's own writes (its own connection, many
// commits a second) change deliveries, not the data the API serves, and so drop nothing. On PostgreSQL there is
// no such counter: API keys are dropped on NOTIFY instead (key-lookup.ts); several processes share answers in Redis.
import type { Core } from '../core.js';
import type { ChangeCounterRow } from './tables.js';

/** The counters that changed: `trips`, `customers`, `bookings`, `payments`, `api_keys`. */
export type ForeignChangeListener = (changed: string[]) => void;

interface Source {
  version(): number;
  counters(): ChangeCounterRow[];
}

export class ForeignWrites {
  private seenVersion: number | null = null;
  private readonly seen = new Map<string, number>();
  private readonly listeners: ForeignChangeListener[] = [];

  constructor(private readonly source: Source | null) {}

  static of(core: Core): ForeignWrites {
    // Prepared once: this runs on every request.
    const source = core.store.sql.changeSource(core.db.selectFrom('change_counters').select(['name', 'generation'])
      .compile().sql);
    if (!source) return new ForeignWrites(null);
    return new ForeignWrites({ version: source.version, counters: () => source.counters() as ChangeCounterRow[] });
  }

  /** Whether other processes' commits can be noticed (SQLite). */
  get observable(): boolean {
    return this.source !== null;
  }

  onChange(listener: ForeignChangeListener): void {
    this.listeners.push(listener);
  }

  /** Checks for commits by other connections since the last poll, and tells the listeners what they changed. */
  poll(): void {
    if (!this.source) return;
    const version = this.source.version();
    if (version === this.seenVersion) return;
    const first = this.seenVersion === null;
    this.seenVersion = version;
    const changed: string[] = [];
    for (const { name, generation } of this.source.counters()) {
      if (this.seen.get(name) !== generation && !first) changed.push(name);
      this.seen.set(name, generation);
    }
    if (changed.length > 0) for (const l of this.listeners) l(changed);
  }
}
