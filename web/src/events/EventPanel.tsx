// One event: its payload (the envelope webhooks carry), and for each webhook what happened to it there (its
// deliveries, linked to the Logs tab, or why it got none: its filter skipped it, it is not subscribed…), with
// "Send to webhook…", which queues one more delivery of this very event.
import { useState } from 'react';
import { get } from '../api';
import { Badge, type Tone } from '../components/Badge';
import { CopyButton } from '../components/CopyButton';
import { Dialog } from '../components/Dialog';
import { formatDate, timeAgo } from '../format';
import type { EventDetail, EventWebhookOutcome } from '../types';
import { usePolling } from '../usePolling';
import { recordText } from './EventsTab';
import { SendEventDialog } from './SendEventDialog';

const NO_DELIVERY: Record<string, [label: string, tone: Tone, why: string]> = {
  skipped_by_filter: ['Skipped by its filter', 'amber', 'Its payload filter did not match this event.'],
  not_subscribed: ['Not subscribed', 'grey', 'It does not subscribe to this event type.'],
  created_later: ['Created later', 'grey', 'It was created after this event.'],
  disabled: ['Disabled', 'grey', 'It is disabled, so it was not sent.'],
  not_sent: ['Not sent', 'grey', 'It got no delivery of this event.'],
};
const DELIVERED: Record<string, [label: string, tone: Tone]> = {
  succeeded: ['Succeeded', 'green'], pending: ['Pending', 'blue'], failed: ['Failed', 'red'],
  cancelled: ['Cancelled', 'grey'],
};

function Outcome({ w }: { w: EventWebhookOutcome }) {
  const last = w.deliveries[0];
  if (!last) {
    const [label, tone, why] = NO_DELIVERY[w.outcome] ?? NO_DELIVERY.not_sent;
    return <><Badge tone={tone}>{label}</Badge><div className="muted small">{why}</div></>;
  }
  const [label, tone] = DELIVERED[w.outcome] ?? [w.outcome, 'grey'];
  return (
    <>
      <Badge tone={tone}>{label}{last.last_status ? ` · ${last.last_status}` : ''}</Badge>
      <ul className="outcome-deliveries small">
        {w.deliveries.map((d) => (
          <li key={d.id}>
            <a className="mono" href={`#/logs?delivery=${encodeURIComponent(d.id)}`}
              aria-label={`Delivery ${d.id} in Logs`}>{d.id}</a>
            {' '}<span className="muted">{DELIVERED[d.status]?.[0] ?? d.status}{d.redelivery_of ? ' · resent' : ''}
              {' · '}{timeAgo(d.created_at)}</span>
          </li>
        ))}
      </ul>
    </>
  );
}

export function EventPanel({ id, onClose }: { id: string; onClose: () => void }) {
  const { data: e, error, refresh } = usePolling(() => get<EventDetail>(`/events/${id}`), [id]);
  const [sending, setSending] = useState(false);
  const payload = e ? JSON.stringify(e.envelope, null, 2) : '';
  return (
    <Dialog title="Event details" onClose={onClose} side>
      {error && !e && <p className="form-error" role="alert">{error}</p>}
      {!e ? (error ? null : <p className="muted" aria-busy="true">Loading…</p>) : (
        <div className="delivery-detail">
          <div className="detail-summary">
            <span className="mono small">{e.envelope.type}</span>
            {e.test && <span className="chip chip-test">Test</span>}
            <button type="button" className="button button-primary button-small push-right"
              onClick={() => setSending(true)}>Send to webhook…</button>
          </div>
          <dl className="facts">
            <div><dt>Event ID</dt><dd className="mono">{e.envelope.id}</dd></div>
            <div><dt>Record</dt><dd>{recordText(e.record)}</dd></div>
            <div><dt>Created</dt><dd>{formatDate(e.envelope.created_at)}</dd></div>
          </dl>
          <h3>Webhooks</h3>
          {e.webhooks.length === 0 ? <p className="muted">No webhooks yet.</p> : (
            <div className="table-wrap">
              <table className="table" aria-label="What each webhook did with this event">
                <thead><tr><th scope="col">Webhook</th><th scope="col">Outcome</th></tr></thead>
                <tbody>
                  {e.webhooks.map((w) => (
                    <tr key={w.webhook_id} data-webhook={w.webhook_id}>
                      <td>{w.webhook_name}{!w.active && <span className="chip">Disabled</span>}</td>
                      <td data-testid="outcome"><Outcome w={w} /></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <div className="code-header event-payload-header">
            <h3>Payload</h3><CopyButton text={payload} what="payload" />
          </div>
          <pre className="code-block" tabIndex={0} aria-label="Event payload">{payload}</pre>
        </div>
      )}
      {sending && e && (
        <SendEventDialog event={e} onClose={() => setSending(false)} onSent={() => refresh()} />
      )}
    </Dialog>
  );
}
