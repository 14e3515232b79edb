// Disabling a webhook (automatically after the last attempt fails, or by an admin): it stops firing, and its
// still-pending deliveries are cancelled with a reason (they stay in the log and can be redelivered).
import type { Kysely } from 'kysely';
import type { Core } from '../core.js';
import type { Database } from '../store/tables.js';
import { openOffPeriod } from './off-periods.js';

/** Sets active=0 with the reason, opens an off period (off-periods.ts) and cancels the webhook's pending deliveries
 *  (in the caller's transaction, if any). */
export async function disableWebhook(
  db: Kysely<Database>, core: Core, webhookId: string, reason: string,
): Promise<void> {
  const now = new Date(core.clock.now()).toISOString();
  await db.updateTable('webhooks').set({ active: 0, disabled_reason: reason, updated_at: now })
    .where('id', '=', webhookId).execute();
  await openOffPeriod(db, core, webhookId, reason);
  await cancelPending(db, core, webhookId, `webhook disabled: ${reason}`);
}

/** Cancels a webhook's pending deliveries (those in flight finish their current attempt, then find it cancelled). */
export async function cancelPending(
  db: Kysely<Database>, core: Core, webhookId: string, reason: string,
): Promise<number> {
  const now = new Date(core.clock.now()).toISOString();
  const res = await db.updateTable('deliveries')
    .set({
      status: 'cancelled', cancel_reason: reason, next_attempt_at: null, lease_owner: null, lease_until: null,
      updated_at: now, completed_at: now,
    })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}
