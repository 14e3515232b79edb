// When a webhook was off (migration 0028): disabling opens an off period, re-enabling closes it, in the same
// transaction as the switch. A recover reads them to send, once, the events that happened meanwhile
// (recover/missed.ts).
import type { Kysely } from 'kysely';
import type { Core } from '../core.js';
import type { Database } from '../store/tables.js';
import type { WebhookOffPeriodRow } from './tables.js';

type Db = Kysely<Database>;

/** Opens an off period now, unless one is open already (an auto-disable of a webhook already off). */
export async function openOffPeriod(db: Db, core: Core, webhookId: string, reason: string): Promise<void> {
  const open = await db.selectFrom('webhook_off_periods').select('off_at')
    .where('webhook_id', '=', webhookId).where('on_at', 'is', null).executeTakeFirst();
  if (open) return;
  const now = new Date(core.clock.now()).toISOString();
  await db.insertInto('webhook_off_periods').values({ webhook_id: webhookId, off_at: now, on_at: null, reason })
    .onConflict((oc) => oc.doNothing()).execute();
}

/** Closes the open off period (if any) now. */
export async function closeOffPeriod(db: Db, core: Core, webhookId: string): Promise<void> {
  const now = new Date(core.clock.now()).toISOString();
  await db.updateTable('webhook_off_periods').set({ on_at: now })
    .where('webhook_id', '=', webhookId).where('on_at', 'is', null).execute();
}

/** The webhook's off periods that end at or after `since` (an open one ends now), oldest first. */
export async function offPeriodsSince(db: Db, webhookId: string, since: string): Promise<WebhookOffPeriodRow[]> {
  return db.selectFrom('webhook_off_periods').selectAll().where('webhook_id', '=', webhookId)
    .where((eb) => eb.or([eb('on_at', 'is', null), eb('on_at', '>=', since)]))
    .orderBy('off_at').execute();
}

/** The webhook's last closed off period (the one a re-enable just ended), if any. */
export async function lastOffPeriod(db: Db, webhookId: string): Promise<WebhookOffPeriodRow | undefined> {
  return db.selectFrom('webhook_off_periods').selectAll().where('webhook_id', '=', webhookId)
    .where('on_at', 'is not', null).orderBy('off_at', 'desc').limit(1).executeTakeFirst();
}
