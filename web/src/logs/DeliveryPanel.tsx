// One delivery: its event, and each attempt's request (headers, body), response (status, headers, body),
// duration, error and receiver signal (Retry-After, 410 Gone). "Redeliver" queues a new delivery of the same event.
import { useState } from 'react';
import { ApiError, get, post } from '../api';
import { Badge, deliveryLabel, deliveryTone } from '../components/Badge';
import { CopyButton } from '../components/CopyButton';
import { Dialog } from '../components/Dialog';
import { useToast } from '../components/Toasts';
import { formatDate, prettyBody } from '../format';
import type { Attempt, DeliveryDetail } from '../types';
import { usePolling } from '../usePolling';
import { updateLogParams } from './params';

// Headers and bodies scroll inside their box: focusable and named, so a keyboard can scroll them too.
function Headers({ headers, label }: { headers: Record<string, string>; label: string }) {
  const entries = Object.entries(headers);
  if (entries.length === 0) return <p className="muted small">(no headers)</p>;
  return (
    <dl className="headers" tabIndex={0} aria-label={label}>
      {entries.map(([k, v]) => (
        <div key={k}><dt>{k}</dt><dd>{v}</dd></div>
      ))}
    </dl>
  );
}

/** In place of a body the payload or response retention blanked (Settings › Alerts & retention). */
function Pruned({ note }: { note: string }) {
  return <p className="muted small" data-testid="body-pruned">{note}</p>;
}

function AttemptCard({ a, open }: { a: Attempt; open: boolean }) {
  return (
    <details className="attempt" open={open} data-testid="attempt">
      <summary>
        <span className="attempt-title">Attempt {a.attempt}</span>
        <Badge tone={a.success ? 'green' : 'red'}>
          {a.success ? 'Succeeded' : 'Failed'}{a.response ? ` · ${a.response.status}` : ''}
        </Badge>
        <span className="muted small">{formatDate(a.started_at)} · {a.duration_ms} ms</span>
      </summary>
      {a.error && <p className="reason"><strong>Error:</strong> {a.error}</p>}
      {a.signal && (
        <p
          className={a.signal.startsWith('postponed') ? 'reason signal-postponed' : 'reason'}
          data-testid="attempt-signal"
        >
          <strong>Receiver signal:</strong> {a.signal}
        </p>
      )}
      <div className="attempt-grid">
        <section aria-label={`Attempt ${a.attempt} request`}>
          <h4>Request</h4>
          <p className="mono small">POST {a.request.url}</p>
          <Headers headers={a.request.headers} label={`Attempt ${a.attempt} request headers`} />
          {a.request.pruned ? <Pruned note={a.request.pruned} /> : (
            <>
              <div className="code-header">
                <span className="small muted">Body</span><CopyButton text={a.request.body} what="request body" />
              </div>
              <pre className="code-block" tabIndex={0} aria-label={`Attempt ${a.attempt} request body`}>
                {prettyBody(a.request.body)}
              </pre>
            </>
          )}
        </section>
        <section aria-label={`Attempt ${a.attempt} response`}>
          <h4>Response</h4>
          {a.response ? (
            <>
              <p className="small">HTTP <strong>{a.response.status}</strong></p>
              {a.response.pruned ? <Pruned note={a.response.pruned} /> : (
                <>
                  <Headers headers={a.response.headers} label={`Attempt ${a.attempt} response headers`} />
                  <div className="code-header"><span className="small muted">Body</span></div>
                  <pre className="code-block" tabIndex={0} aria-label={`Attempt ${a.attempt} response body`}>
                    {prettyBody(a.response.body) || <span className="muted">(empty)</span>}
                  </pre>
                </>
              )}
            </>
          ) : <p className="muted small">No response was received.</p>}
        </section>
      </div>
    </details>
  );
}

// While the delivery loads: the same blocks, the same sizes (summary, four facts, an attempt), so nothing jumps
// when it arrives.
function DeliverySkeleton() {
  const bar = (width: string) => <span className="skeleton" style={{ width }} />;
  return (
    <div className="delivery-detail" aria-busy="true">
      <span className="visually-hidden">Loading…</span>
      <div className="detail-summary" aria-hidden="true">
        {bar('84px')}{bar('120px')}<span className="skeleton skeleton-button push-right" />
      </div>
      <div className="facts" aria-hidden="true">
        {['Webhook', 'Delivery ID', 'Event ID', 'Created'].map((k) => (
          <div key={k}><div className="small muted">{k}</div>{bar('70%')}</div>
        ))}
      </div>
      <h3 aria-hidden="true">{bar('110px')}</h3>
      <div className="attempt skeleton-attempt" aria-hidden="true" />
    </div>
  );
}

/** The log's current parameters (the URL hash's query), to change one of them. */
const paramsNow = () => new URLSearchParams(window.location.hash.split('?')[1] ?? '');

export function DeliveryPanel({ id, onClose }: { id: string; onClose: () => void }) {
  const toast = useToast();
  const { data: d, error } = usePolling(() => get<DeliveryDetail>(`/deliveries/${id}`), [id]);
  const [busy, setBusy] = useState(false);

  const redeliver = async () => {
    setBusy(true);
    try {
      const created = await post<{ id?: string; delivery_id?: string }>(`/deliveries/${id}/redeliver`);
      toast('Redelivery queued');
      const newId = created?.id ?? created?.delivery_id;
      if (newId) updateLogParams(paramsNow(), { delivery: newId, page: null });
    } catch (err) {
      toast(err instanceof ApiError ? err.message : String(err), 'error');
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog title="Delivery details" onClose={onClose} side>
      {error && !d && <p className="form-error" role="alert">{error}</p>}
      {!d ? (error ? null : <DeliverySkeleton />) : (
        <div className="delivery-detail">
          <div className="detail-summary">
            <Badge tone={deliveryTone(d.status)}>{deliveryLabel(d.status)}</Badge>
            <span className="mono small">{d.event_type}</span>
            {d.test && <span className="chip chip-test">Test</span>}
            <button type="button" className="button button-primary button-small push-right" onClick={redeliver}
              disabled={busy}>{busy ? 'Queuing…' : 'Redeliver'}</button>
          </div>
          <dl className="facts">
            <div><dt>Webhook</dt><dd>{d.webhook_name ?? d.webhook_id}</dd></div>
            <div><dt>Delivery ID</dt><dd className="mono">{d.id}</dd></div>
            <div><dt>Event ID</dt><dd className="mono">{d.event_id}</dd></div>
            <div><dt>Created</dt><dd>{formatDate(d.created_at)}</dd></div>
            {d.completed_at && <div><dt>Completed</dt><dd>{formatDate(d.completed_at)}</dd></div>}
            {d.status === 'pending' && d.next_attempt_at && (
              <div><dt>Next attempt</dt><dd>{formatDate(d.next_attempt_at)}</dd></div>
            )}
            {d.cancel_reason && <div><dt>Cancelled</dt><dd>{d.cancel_reason}</dd></div>}
            {d.redelivery_of && (
              <div>
                <dt>Redelivery of</dt>
                <dd>
                  <a className="mono" href="#" onClick={(e) => {
                    e.preventDefault();
                    updateLogParams(paramsNow(), { delivery: d.redelivery_of });
                  }}>{d.redelivery_of}</a>
                </dd>
              </div>
            )}
          </dl>
          <h3>Attempts ({d.attempts.length})</h3>
          {d.attempts.length === 0 ? (
            <p className="muted">
              No attempt yet{d.status === 'pending' ? ': the first one starts in a moment.' : '.'}
            </p>
          ) : [...d.attempts].reverse().map((a, i) => <AttemptCard key={a.attempt} a={a} open={i === 0} />)}
        </div>
      )}
    </Dialog>
  );
}
