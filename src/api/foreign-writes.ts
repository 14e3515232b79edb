// Notices commits made by other connections to the same SQLite file: a `waypost import`, `waypost keys disable`
// run beside the server, or a second process without Redis. SQLite's `PRAGMA data_version` moves when another
// connection commits; the API polls it once per request, before it trusts anything it holds in memory (cached
// responses, cached API keys). On PostgreSQL there is no such counter, and nothing in memory relies on it.
import type { Core } from '../core.js';

export class ForeignWrites {
  private seen: number | null = null;
  private readonly listeners: Array<() => void> = [];

  constructor(private readonly version: (() => number) | null) {}

  static of(core: Core): ForeignWrites {
    const sqlite = core.store.sqlite;
    if (!sqlite) return new ForeignWrites(null);
    const statement = sqlite.prepare('PRAGMA data_version').pluck(); // prepared once: this runs on every request
    return new ForeignWrites(() => Number(statement.get()));
  }

  /** Whether other processes' commits can be noticed (SQLite). */
  get observable(): boolean {
    return this.version !== null;
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Checks for commits by other connections since the last poll, and tells the listeners if there were some. */
  poll(): void {
    if (!this.version) return;
    const v = this.version();
    if (this.seen !== null && v !== this.seen) for (const l of this.listeners) l();
    this.seen = v;
  }
}
