// Finds the API key a request names. Keys once read are held in memory, and dropped (all of them) whenever a key
// may have changed: at once for a change made through this process (bus event 'api_keys.changed'); on SQLite when
// another connection changed api_keys (ForeignWrites, polled before each request, so `waypost keys disable` run
// beside the server takes effect on the very next request); on PostgreSQL when the database NOTIFYs a change
// (migration 0016's trigger, whoever wrote it; a new key notifies nothing since 0019: it cannot be held yet),
// received on the process's LISTEN connection. Keys are held only while that connection LISTENs: before it does,
// and from its loss until it is back, every request reads its key from the database, and on its return everything
// is dropped again (notifications sent meanwhile are lost).
import type { Core } from '../core.js';
import { notificationsOf } from '../store/notifications.js';
import { readRows } from '../store/read.js';
import type { ApiKeyRow } from '../store/tables.js';
import type { ForeignWrites } from './foreign-writes.js';

export interface KnownKey {
  id: string;
  secretHash: string;
  permissions: string[];
  active: boolean;
  rateLimit: number | null;
  lastUsedAt: string | null;
}

/** The channel the trigger on api_keys NOTIFYs (migrations 0016 and 0019). */
export const API_KEYS_CHANNEL = 'waypost_api_keys';

const MAX_KEYS = 10_000; // only existing keys are held (never unknown tokens), so this is a safety net

type KeyRow = Pick<ApiKeyRow, 'id' | 'secret_hash' | 'permissions' | 'active' | 'rate_limit' | 'last_used_at'>;

export class KeyLookup {
  private readonly held = new Map<string, KnownKey>();
  private readonly read: (token: string) => Promise<KeyRow | undefined>;
  /** Whether what is read now will be dropped on its change (SQLite: always; PostgreSQL: while LISTENing). */
  private observed: boolean;
  /** Bumped at every drop: a read that began before a drop may be older than the change, so it is not held. */
  private generation = 0;
  private watch: (() => void) | null = null;
  private unwatch: (() => Promise<void>) | null = null;

  constructor(core: Core, foreignWrites: ForeignWrites) {
    const query = core.db.selectFrom('api_keys')
      .select(['id', 'secret_hash', 'permissions', 'active', 'rate_limit', 'last_used_at'])
      .where('key', '=', '').compile();
    this.read = async (token) => (await readRows<KeyRow>(core, { ...query, parameters: [token] }))[0];
    this.observed = foreignWrites.observable;
    core.bus.on('api_keys.changed', () => this.drop());
    foreignWrites.onChange((changed) => { if (changed.includes('api_keys')) this.drop(); });
    const notifications = this.observed ? null : notificationsOf(core);
    // Started by the first lookup, so a process that never authenticates (a CLI import) opens no connection.
    if (notifications) {
      this.watch = () => {
        this.watch = null;
        this.unwatch = notifications.subscribe(API_KEYS_CHANNEL, {
          notified: () => this.drop(),
          listening: () => { this.drop(); this.observed = true; },
          lost: () => { this.observed = false; this.drop(); },
        });
      };
    }
  }

  private drop(): void {
    this.held.clear();
    this.generation++;
  }

  async find(token: string): Promise<KnownKey | undefined> {
    this.watch?.();
    const known = this.held.get(token);
    if (known) return known;
    const generation = this.generation;
    const row = await this.read(token);
    if (!row) return undefined;
    const key: KnownKey = {
      id: row.id, secretHash: row.secret_hash, permissions: JSON.parse(row.permissions) as string[],
      active: row.active === 1, rateLimit: row.rate_limit, lastUsedAt: row.last_used_at,
    };
    if (this.observed && generation === this.generation) {
      if (this.held.size >= MAX_KEYS) this.held.clear();
      this.held.set(token, key);
    }
    return key;
  }

  /** Stops listening for key changes (Waypost.close()). */
  async close(): Promise<void> {
    this.watch = null;
    this.observed = false;
    this.drop();
    await this.unwatch?.();
  }
}
