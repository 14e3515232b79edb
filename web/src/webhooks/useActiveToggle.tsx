// Switching a webhook off or on, from the list or the editor. Disabling cancels its pending deliveries, so it is
// confirmed first (saying how many); re-enabling offers to redeliver, once, what failed or was cancelled meanwhile
// and to send the events that happened while it was off (enable's answer counts them), through RecoverDialog
// (POST /webhooks/:id/recover, which never sends anything twice, followed to the end).
import { useRef, useState, type ReactNode } from 'react';
import { ApiError, get, post, query } from '../api';
import { RecoverDialog } from './RecoverDialog';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { useToast } from '../components/Toasts';
import { formatDate, plural } from '../format';
import type { Delivery, MissedWhileDisabled, Page, Webhook } from '../types';

// A pending delivery is at most about an hour old (the retry schedule), so a day before the switch-off covers
// what it cancelled even when the browser did not see the disable (auto-disable, another admin, the CLI).
const LOOKBACK_MS = 24 * 60 * 60 * 1000;
const sinceKey = (id: string) => `waypost.recover-since.${id}`;

const countOf = async (webhookId: string, status: string, since?: string) =>
  (await get<Page<Delivery>>(`/deliveries${query({ webhook_id: webhookId, status, since, perpage: 1 })}`)).total;

type Pending = { kind: 'disable'; webhook: Webhook; pending: number }
  | { kind: 'recover'; webhook: Webhook; since: string; missed: number; events: MissedWhileDisabled | null };

export function useActiveToggle(refresh: () => Promise<void>): {
  setActive: (w: Webhook, active: boolean) => Promise<void>; busyId: string | null; dialogs: ReactNode;
} {
  const toast = useToast();
  const [busyId, setBusyId] = useState<string | null>(null);
  const [open, setOpen] = useState<Pending | null>(null);

  const fail = (err: unknown) => toast(err instanceof ApiError ? err.message : String(err), 'error');

  const disable = async (w: Webhook) => {
    // The oldest pending delivery is where a later recover starts (ids and times sort together; newest first).
    const pendingQuery = { webhook_id: w.id, status: 'pending', perpage: 1 };
    const pending = await get<Page<Delivery>>(`/deliveries${query(pendingQuery)}`);
    const oldest = pending.total > 1
      ? (await get<Page<Delivery>>(`/deliveries${query({ ...pendingQuery, page: pending.total })}`)).items[0]
      : pending.items[0];
    await post(`/webhooks/${w.id}/disable`);
    window.sessionStorage.setItem(sinceKey(w.id), oldest?.created_at ?? new Date().toISOString());
    toast(`${w.name} is disabled`);
    await refresh();
  };

  const enable = async (w: Webhook) => {
    const enabled = await post<{ missed_while_disabled: MissedWhileDisabled | null }>(`/webhooks/${w.id}/enable`);
    toast(`${w.name} is active again`);
    await refresh();
    const events = enabled.missed_while_disabled;
    const stored = window.sessionStorage.getItem(sinceKey(w.id))
      ?? new Date(Date.parse(w.updated_at) - LOOKBACK_MS).toISOString();
    // From the switch-off at the latest: the recover sends the events of the off periods since its time.
    const since = events && events.since < stored ? events.since : stored;
    const missed = (await countOf(w.id, 'cancelled', since)) + (await countOf(w.id, 'failed', since));
    if (missed > 0 || (events?.events ?? 0) > 0) setOpen({ kind: 'recover', webhook: w, since, missed, events });
  };

  // A second press while the first is saved is ignored (state alone would let two presses in one frame through).
  const pending = useRef(false);
  const setActive = async (w: Webhook, active: boolean) => {
    if (pending.current) return;
    pending.current = true;
    setBusyId(w.id);
    try {
      if (active) await enable(w);
      else {
        const pending = await countOf(w.id, 'pending');
        if (pending === 0) await disable(w);
        else setOpen({ kind: 'disable', webhook: w, pending });
      }
    } catch (err) {
      fail(err);
    } finally {
      pending.current = false;
      setBusyId(null);
    }
  };

  let dialogs: ReactNode = null;
  if (open?.kind === 'disable') {
    const { webhook: w, pending } = open;
    dialogs = (
      <ConfirmDialog title={`Disable “${w.name}”?`} danger
        confirmLabel={`Disable and cancel ${plural(pending, 'delivery', 'deliveries')}`}
        onClose={() => setOpen(null)} onConfirm={() => disable(w)}>
        <p>
          {plural(pending, 'delivery is', 'deliveries are')} still waiting to be
          sent to <span className="mono">{w.url}</span>.
          Disabling cancels {pending === 1 ? 'it' : 'them'}; when you re-enable the webhook you can redeliver what was
          cancelled.
        </p>
      </ConfirmDialog>
    );
  } else if (open?.kind === 'recover') {
    const { webhook: w, since, missed, events } = open;
    const n = events?.events ?? 0;
    const parts = [
      ...(missed > 0 ? [`${plural(missed, 'delivery', 'deliveries')} to “${w.name}” failed or `
        + `${missed === 1 ? 'was' : 'were'} cancelled since ${formatDate(since)}`] : []),
      ...(n > 0 ? [`${events?.more ? 'more than ' : ''}${plural(n, 'event')} happened while `
        + `${missed > 0 ? 'it' : `“${w.name}”`} was off`] : []),
    ];
    const told = parts.join(' and ');
    dialogs = (
      <RecoverDialog webhook={w} since={since} title="Redeliver what was missed?" onClose={() => setOpen(null)}
        onDone={() => { window.sessionStorage.removeItem(sinceKey(w.id)); void refresh(); }}
        intro={(
          <p>
            {told.charAt(0).toUpperCase() + told.slice(1)}. {missed + n === 1 ? 'Send it' : 'Send them'} now, once?
          </p>
        )} />
    );
  }
  return { setActive, busyId, dialogs };
}
