// Finds the API key a request names. On SQLite, keys once read are held in memory: a key disabled, re-enabled or
// deleted through this process is dropped at once (bus event 'api_keys.changed'), and every key is dropped when
// another connection changes the API keys (ForeignWrites, polled before each request), so `waypost keys disable`
// run beside the server still takes effect on the very next request. On PostgreSQL another process's change cannot
// be noticed that way, so the key is read on every request there.
import type { Core } from '../core.js';
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

const MAX_KEYS = 10_000; // only existing keys are held (never unknown tokens), so this is a safety net

type KeyRow = Pick<ApiKeyRow, 'id' | 'secret_hash' | 'permissions' | 'active' | 'rate_limit' | 'last_used_at'>;

export class KeyLookup {
  private readonly held = new Map<string, KnownKey>();
  private readonly read: (token: string) => Promise<KeyRow | undefined>;
  private readonly holds: boolean;

  constructor(core: Core, foreignWrites: ForeignWrites) {
    const query = core.db.selectFrom('api_keys')
      .select(['id', 'secret_hash', 'permissions', 'active', 'rate_limit', 'last_used_at'])
      .where('key', '=', '').compile();
    this.read = async (token) => (await readRows<KeyRow>(core, { ...query, parameters: [token] }))[0];
    this.holds = foreignWrites.observable;
    core.bus.on('api_keys.changed', () => this.held.clear());
    foreignWrites.onChange((changed) => { if (changed.includes('api_keys')) this.held.clear(); });
  }

  async find(token: string): Promise<KnownKey | undefined> {
    const known = this.held.get(token);
    if (known) return known;
    const row = await this.read(token);
    if (!row) return undefined;
    const key: KnownKey = {
      id: row.id, secretHash: row.secret_hash, permissions: JSON.parse(row.permissions) as string[],
      active: row.active === 1, rateLimit: row.rate_limit, lastUsedAt: row.last_used_at,
    };
    if (this.holds) {
      if (this.held.size >= MAX_KEYS) this.held.clear();
      this.held.set(token, key);
    }
    return key;
  }
}
