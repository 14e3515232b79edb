// Per-record order (issue 36, docs/webhooks.md "Ordering"): a webhook with `ordering: record` gets the events of one
// record one after another, in commit order. Each of its deliveries carries the record's key; the pending deliveries
// of one webhook and record form a chain: the first is due, each later one waits for the one before it (`waits_for`,
// next_attempt_at null, so the claim never reads it) and is made due in the transaction that ends that one
// (succeeded, failed for good or cancelled). The claim is the unordered one, unchanged: waiting costs the claim
// nothing and unordered webhooks pay for none of this.
// Joining a chain and ending a delivery of one take the chain's lock (PostgreSQL: an advisory lock; SQLite's writes
// are serial): without it, a delivery ending while a write joins its chain would miss the newcomer, which would then
// wait for ever. The lock also makes a chain's order the order in which the writes commit.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/tables.js';
import { lockNames } from '../../store/locks.js';

type Db = Kysely<Database>;

/** A chain: one ordered webhook's pending deliveries about one record. */
export interface Chain {
  webhookId: string;
  orderKey: string;
}

/** The key of an event's record (`bookings:42`); null for events about no record (test samples): never ordered. */
export function recordKey(resource: string | null, recordId: number | null): string | null {
  return resource === null || recordId === null ? null : `${resource}:${recordId}`;
}

/** The chain of a delivery row; undefined when it is outside any order (unordered webhook, redelivery). */
export function chainOf(d: { webhook_id: string; order_key: string | null }): Chain | undefined {
  return d.order_key === null ? undefined : { webhookId: d.webhook_id, orderKey: d.order_key };
}

/** Takes the chains' locks until the transaction ends (sorted: two enders or joiners cannot deadlock). */
export async function lockChains(db: Db, chains: readonly Chain[]): Promise<void> {
  await lockNames(db, chains.map((c) => `delivery-order:${c.webhookId}:${c.orderKey}`));
}

/**
 * In the write's transaction, before its deliveries are inserted: for each, the pending delivery of its chain it
 * must wait for (the chain's last), or null when the chain is empty (due now).
 */
export async function placeInChains(db: Db, chains: readonly Chain[]): Promise<Array<string | null>> {
  await lockChains(db, chains);
  const lastOf = new Map<string, string | null>();
  const byKey = new Map<string, string[]>();
  for (const c of chains) byKey.set(c.orderKey, [...(byKey.get(c.orderKey) ?? []), c.webhookId]);
  for (const [orderKey, webhookIds] of byKey) {
    const rows = await chainQuery(db, orderKey, [...new Set(webhookIds)]).execute();
    for (const webhookId of webhookIds) {
      const chain = rows.filter((r) => r.webhook_id === webhookId);
      const waitedFor = new Set(chain.map((r) => r.waits_for));
      // The last is the one nobody waits for (the greatest id if a chain were ever split).
      const last = chain.filter((r) => !waitedFor.has(r.id)).map((r) => r.id).sort().at(-1) ?? null;
      lastOf.set(`${webhookId}\n${orderKey}`, last);
    }
  }
  // Several deliveries of one chain in one call (cannot happen: one event, distinct webhooks) would all wait for the
  // same one; the caller queues one event at a time.
  return chains.map((c) => lastOf.get(`${c.webhookId}\n${c.orderKey}`) ?? null);
}

/** In the transaction that ended `ids` (chains locked): the deliveries waiting for them become due at `now`. */
export async function releaseNext(db: Db, ids: readonly string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await releaseQuery(db, ids, now).execute();
}

/** The pending deliveries of a record's chains (status as a literal: the deliveries_order_chain index is partial). */
export function chainQuery(db: Db, orderKey: string, webhookIds: readonly string[]) {
  return db.selectFrom('deliveries').select(['id', 'webhook_id', 'waits_for'])
    .where('order_key', '=', orderKey).where('webhook_id', 'in', webhookIds)
    .where(sql<boolean>`status = 'pending'`);
}

/** The deliveries waiting for `ids` made due (found in the partial deliveries_waits_for index). */
export function releaseQuery(db: Db, ids: readonly string[], now: number) {
  return db.updateTable('deliveries').set({ waits_for: null, next_attempt_at: now })
    .where('waits_for', 'in', ids).where(sql<boolean>`status = 'pending'`);
}

/**
 * Makes due every waiting delivery whose predecessor is no longer pending (or gone): a safety net for a chain whose
 * end was not seen (the webhook was disabled while a write joined it). Reads only waiting rows (a partial index).
 */
export async function releaseOrphans(db: Db, now: number, webhookId?: string): Promise<number> {
  const res = await db.updateTable('deliveries').set({ waits_for: null, next_attempt_at: now })
    .where('waits_for', 'is not', null).where(sql<boolean>`status = 'pending'`)
    .$if(webhookId !== undefined, (q) => q.where('webhook_id', '=', webhookId!))
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('deliveries as p').select('p.id')
      .whereRef('p.id', '=', 'deliveries.waits_for').where(sql<boolean>`p.status = 'pending'`))))
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}
