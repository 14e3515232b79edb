// The webhook list: name and URL, events, an active switch (red "Auto-disabled" with its reason when Waypost
// switched it off), the last delivery, and actions. Updates live while deliveries happen.
import { get } from '../api';
import { Badge, deliveryLabel, deliveryTone } from '../components/Badge';
import { EmptyState } from '../components/EmptyState';
import { LoadingRows } from '../components/LoadingRows';
import { Switch } from '../components/Switch';
import { timeAgo } from '../format';
import { navigate } from '../router';
import type { EventTypeInfo, Webhook } from '../types';
import { usePolling } from '../usePolling';
import { neverMatched } from './filterText';
import { isAutoDisabled } from './status';
import { useActiveToggle } from './useActiveToggle';
import { RecoverDialog } from './RecoverDialog';
import { useState } from 'react';
import { useView } from '../components/view';
import { rateText, streakText, WebhookCharts } from './WebhookCharts';
import type { WebhookHealth } from '../types';

export function WebhooksTab() {
  const { data, error, refresh } = usePolling(async () => {
    const [webhooks, events, health] = await Promise.all([get<Webhook[]>('/webhooks'),
      get<EventTypeInfo[]>('/event-types'), get<{ items: WebhookHealth[] }>('/webhooks/health?range=24h')]);
    return { webhooks, labels: new Map(events.map((e) => [e.type, e.label])),
      health: new Map(health.items.map((h) => [h.webhook_id, h])) };
  }, []);
  const { setActive, busyId: busy, dialogs } = useActiveToggle(refresh);
  const heading = useView('Webhooks');
  const [recovering, setRecovering] = useState<Webhook | null>(null);
  // The button goes once the webhook is active again: focus moves to the row's switch, which now says so.
  const reEnable = async (button: HTMLElement, w: Webhook) => {
    const row = button.closest('tr');
    await setActive(w, true);
    if (!button.isConnected) row?.querySelector<HTMLElement>('[role="switch"]')?.focus();
  };

  return (
    <>
      <div className="section-header">
        <div>
          <h2 tabIndex={-1} ref={heading}>Webhooks</h2>
          <p className="muted">
            Waypost POSTs a signed JSON event to each active webhook, retries failures for about an hour, then
            disables it and e-mails you.
          </p>
        </div>
        <a className="button button-primary" href="#/webhooks/new">Add webhook</a>
      </div>
      {error && <p className="form-error" role="alert">{error}</p>}
      {!data ? <LoadingRows label="Loading webhooks…" /> : data.webhooks.length === 0 ? (
        <EmptyState title="No webhooks yet"
          action={<a className="button button-primary" href="#/webhooks/new">Add your first webhook</a>}>
          Add an endpoint to receive booking, payment, customer, enquiry and review events as they happen.
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-label="Webhooks">
            <thead>
              <tr>
                <th scope="col">Webhook</th><th scope="col">Events</th><th scope="col">Status</th>
                <th scope="col">Last delivery</th><th scope="col">Health (24 h)</th>
                <th scope="col"><span className="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {data.webhooks.map((w) => (
                <tr key={w.id} className={isAutoDisabled(w) ? 'row-alert' : undefined} data-webhook={w.name}>
                  <td>
                    <a className="strong-link" href={`#/webhooks/${w.id}`}>{w.name}</a>
                    <div className="mono muted small truncate" title={w.url}>{w.url}</div>
                    {w.filter !== null && (
                      <div className={`small ${neverMatched(w) ? 'filter-never' : 'muted'}`} data-testid="filter-note"
                        title={neverMatched(w) ?? JSON.stringify(w.filter)}>
                        {neverMatched(w) ? `Filtered: matched none of the last ${w.filter_preview!.total} events`
                          : 'Filtered'}
                      </div>
                    )}
                    {w.max_per_second !== null && (
                      <div className="muted small" data-testid="throttle">At most {w.max_per_second}/s</div>
                    )}
                    {w.payload === 'minimal' && (
                      <div className="muted small" data-testid="payload-note"
                        title="Record ids and an API link, no personal fields">Minimal payload</div>
                    )}
                  </td>
                  <td>
                    <div className="chips">
                      {w.events.slice(0, 3).map((e) => (
                        <span key={e} className="chip" title={e}>{data.labels.get(e) ?? e}</span>
                      ))}
                      {w.events.length > 3 && (
                        <span className="chip chip-more" title={w.events.slice(3).join(', ')}>
                          +{w.events.length - 3} more
                        </span>
                      )}
                    </div>
                  </td>
                  <td>
                    <div className="status-cell">
                      <Switch checked={w.active} busy={busy === w.id} label={`${w.name} active`}
                        onChange={(v) => setActive(w, v)} />
                      {w.active ? <Badge tone="green">Active</Badge>
                        : isAutoDisabled(w) ? <Badge tone="red">Auto-disabled</Badge>
                          : <Badge tone="grey">Disabled</Badge>}
                    </div>
                    {isAutoDisabled(w) && <p className="reason" data-testid="disabled-reason">{w.disabled_reason}</p>}
                  </td>
                  <td>
                    {w.last_delivery ? (
                      <a href={`#/logs?webhook_id=${w.id}&delivery=${w.last_delivery.id}`} className="plain-link">
                        <Badge tone={deliveryTone(w.last_delivery.status)}>
                          {deliveryLabel(w.last_delivery.status)}
                          {w.last_delivery.last_status ? ` · ${w.last_delivery.last_status}` : ''}
                        </Badge>
                        <div className="muted small">{timeAgo(w.last_delivery.created_at)}</div>
                      </a>
                    ) : <span className="muted">No deliveries yet</span>}
                  </td>
                  <td className="small" data-testid="health-cell">
                    <div className="strong">{rateText(data.health.get(w.id))} succeeded</div>
                    <div className="muted">{streakText(data.health.get(w.id))}</div>
                  </td>
                  <td className="actions">
                    {isAutoDisabled(w) && (
                      <button type="button" className="button button-small button-primary"
                        onClick={(e) => reEnable(e.currentTarget, w)} aria-busy={busy === w.id || undefined}>
                        Re-enable
                      </button>
                    )}
                    {w.active && (
                      <button type="button" className="button button-small" onClick={() => setRecovering(w)}
                        aria-label={`Recover deliveries to ${w.name}…`}>Recover…</button>
                    )}
                    <button type="button" className="button button-small" onClick={() => navigate(`/webhooks/${w.id}`)}
                      aria-label={`Edit ${w.name}`}>Edit</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && <WebhookCharts webhooks={data.webhooks} />}
      {dialogs}
      {recovering && (
        <RecoverDialog webhook={recovering} onClose={() => setRecovering(null)} onDone={() => void refresh()} />
      )}
    </>
  );
}
