// Per-key API usage (requests, 4xx, 429 per day; and per hour by status class for the console's chart, issue 37).
// Counted in memory and flushed to api_usage and api_usage_hours every few seconds and on close, in one
// transaction: one upsert per key and day and one per key and hour, never one write per request.
import { sql } from 'kysely';
import type { Core } from '../core.js';
import type { ApiUsageHourRow } from './tables.js';
import type { KeyUsage, UsageCounts as Counts } from './views.js';

type HourCounts = Omit<ApiUsageHourRow, 'key_id' | 'hour'>;
const HOUR_MS = 3_600_000;

export type { KeyUsage };

const addCounts = (a: Counts, b: Counts): Counts => ({
  requests: a.requests + b.requests,
  client_errors: a.client_errors + b.client_errors,
  rate_limited: a.rate_limited + b.rate_limited,
});

export class UsageCounter {
  private pending = new Map<string, Counts>();
  private pendingHours = new Map<string, HourCounts>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly core: Core, flushEveryMs = 5_000) {
    const flush = () => void this.flush().catch((err) => core.log.warn({ err }, 'api usage flush failed'));
    this.timer = setInterval(flush, flushEveryMs);
    this.timer.unref();
  }

  record(keyId: string, status: number): void {
    const nowMs = this.core.clock.now();
    const day = new Date(nowMs).toISOString().slice(0, 10);
    const k = `${keyId}|${day}`;
    const c = this.pending.get(k) ?? { requests: 0, client_errors: 0, rate_limited: 0 };
    c.requests += 1;
    if (status >= 400 && status < 500) c.client_errors += 1;
    if (status === 429) c.rate_limited += 1;
    this.pending.set(k, c);
    const hk = `${keyId}|${Math.floor(nowMs / HOUR_MS) * HOUR_MS}`;
    const h = this.pendingHours.get(hk) ?? { ok: 0, client_errors: 0, rate_limited: 0, server_errors: 0 };
    if (status === 429) h.rate_limited += 1;
    else if (status >= 500) h.server_errors += 1;
    else if (status >= 400) h.client_errors += 1;
    else h.ok += 1; // 2xx, and 304 Not Modified (a cached answer is a served call)
    this.pendingHours.set(hk, h);
  }

  /** Writes the pending counts in one transaction (serialised, so two flushes never add the same counts). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write(), () => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0 && this.pendingHours.size === 0) return;
    const batch = this.pending;
    const hours = this.pendingHours;
    this.pending = new Map();
    this.pendingHours = new Map();
    try {
      await this.core.db.transaction().execute(async (trx) => {
        // Sorted: concurrent flushes of two processes lock the same rows in the same order.
        for (const k of [...hours.keys()].sort()) {
          const c = hours.get(k)!;
          const [key_id, hour] = k.split('|');
          const add = (col: keyof HourCounts) => sql<number>`api_usage_hours.${sql.ref(col)} + ${c[col]}`;
          await trx.insertInto('api_usage_hours').values({ key_id, hour: Number(hour), ...c })
            .onConflict((oc) => oc.columns(['key_id', 'hour']).doUpdateSet({
              ok: add('ok'), client_errors: add('client_errors'), rate_limited: add('rate_limited'),
              server_errors: add('server_errors'),
            }))
            .execute();
        }
        for (const [k, c] of batch) {
          const [key_id, day] = k.split('|');
          await trx.insertInto('api_usage').values({ key_id, day, ...c })
            .onConflict((oc) => oc.columns(['key_id', 'day']).doUpdateSet({
              requests: sql`api_usage.requests + ${c.requests}`,
              client_errors: sql`api_usage.client_errors + ${c.client_errors}`,
              rate_limited: sql`api_usage.rate_limited + ${c.rate_limited}`,
            }))
            .execute();
        }
      });
    } catch (err) {
      // Put the counts back so the next flush retries them.
      for (const [k, c] of batch) {
        const p = this.pending.get(k) ?? { requests: 0, client_errors: 0, rate_limited: 0 };
        this.pending.set(k, addCounts(p, c));
      }
      for (const [k, c] of hours) {
        const p = this.pendingHours.get(k) ?? { ok: 0, client_errors: 0, rate_limited: 0, server_errors: 0 };
        this.pendingHours.set(k, {
          ok: p.ok + c.ok, client_errors: p.client_errors + c.client_errors,
          rate_limited: p.rate_limited + c.rate_limited, server_errors: p.server_errors + c.server_errors,
        });
      }
      throw err;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush().catch((err) => this.core.log.warn({ err }, 'api usage flush failed'));
  }
}

/** Usage of every existing key over the last `days` days (today included), oldest day first. */
export async function usageByKey(core: Core, days = 7): Promise<KeyUsage[]> {
  const today = new Date(core.clock.now());
  const fromMs = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - (days - 1));
  const from = new Date(fromMs).toISOString().slice(0, 10);
  const keys = await core.db.selectFrom('api_keys').select(['id', 'label']).orderBy('created_at').orderBy('id')
    .execute();
  const rows = await core.db.selectFrom('api_usage').selectAll().where('day', '>=', from).orderBy('day').execute();
  return keys.map((k) => {
    const mine = rows.filter((r) => r.key_id === k.id).map((r) => ({
      day: r.day, requests: Number(r.requests), client_errors: Number(r.client_errors),
      rate_limited: Number(r.rate_limited),
    }));
    const totals = mine.reduce(addCounts, { requests: 0, client_errors: 0, rate_limited: 0 });
    return { key_id: k.id, label: k.label, days: mine, totals };
  });
}
