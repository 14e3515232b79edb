// Re-enabling (admin API, CLI, console) says what happened while the webhook was off: how many events of its types,
// passing its filter, it missed in the off period the enable closed (missed.ts). A recover since then sends them, with
// the deliveries the disable cancelled. The count stops at MISSED_COUNT_CAP, so the answer stays quick.
import type { Actor } from '../../audit/record.js';
import type { Core } from '../../core.js';
import { enableWebhook, type WebhookView } from '../manage.js';
import { lastOffPeriod } from '../off-periods.js';
import type { MissedWhileDisabled } from '../views.js';
import { countMissed, missedScope } from './missed.js';

export type { MissedWhileDisabled };

export const MISSED_COUNT_CAP = 10_000;

export interface EnabledWebhook extends WebhookView {
  /** The last off period and what it missed; null when it was never disabled. */
  missed_while_disabled: MissedWhileDisabled | null;
}

export async function enableAndCountMissed(core: Core, id: string, actor?: Actor): Promise<EnabledWebhook> {
  const webhook = await enableWebhook(core, id, actor);
  const period = await lastOffPeriod(core.db, id);
  if (!period?.on_at) return { ...webhook, missed_while_disabled: null };
  const scope = await missedScope(core.db, id, period.off_at);
  const events = (await countMissed(core.db, scope, { cap: MISSED_COUNT_CAP + 1 })) ?? 0;
  return {
    ...webhook,
    missed_while_disabled: {
      since: period.off_at, until: period.on_at, events: Math.min(events, MISSED_COUNT_CAP),
      more: events > MISSED_COUNT_CAP,
    },
  };
}
