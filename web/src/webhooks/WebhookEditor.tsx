// Add or edit one webhook: details and events, status (re-enable after a fix), signing secret, test, delete.
import { useCallback, useEffect, useRef, useState } from 'react';
import { del, get, patch, post } from '../api';
import { Badge } from '../components/Badge';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Switch } from '../components/Switch';
import { useToast } from '../components/Toasts';
import { useView } from '../components/view';
import { formatDate } from '../format';
import { navigate } from '../router';
import type { EventTypeInfo, Webhook } from '../types';
import { usePolling } from '../usePolling';
import { isAutoDisabled } from './status';
import { useActiveToggle } from './useActiveToggle';
import { RecoverDialog } from './RecoverDialog';
import { SecretPanel } from './SecretPanel';
import { TestPanel } from './TestPanel';
import { WebhookForm, type WebhookFormValues } from './WebhookForm';
import { filterText, neverMatched, parseFilter } from './filterText';

// The secret returned at creation, handed to the edit page that follows (never stored anywhere).
let justCreatedSecret: { id: string; secret: string } | null = null;

const NEW_WEBHOOK: WebhookFormValues = {
  name: '', url: '', events: [], max_per_second: null, filter: '', ordering: 'none', payload: 'full',
};
const formValues = (w: Webhook): WebhookFormValues => ({
  name: w.name, url: w.url, events: w.events, max_per_second: w.max_per_second, filter: filterText(w.filter),
  ordering: w.ordering, payload: w.payload,
});
/** The form's values as the API takes them: the filter's text as JSON (null: none). */
const body = (v: WebhookFormValues) => ({ ...v, filter: parseFilter(v.filter) ?? null });

export function WebhookEditor({ id }: { id: string | null }) {
  const toast = useToast();
  const [eventTypes, setEventTypes] = useState<EventTypeInfo[] | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [recovering, setRecovering] = useState(false);
  const [formKey, setFormKey] = useState(0);
  const title = useRef<HTMLHeadingElement | null>(null);
  const { data: webhook, error, refresh } = usePolling(async () => (id ? get<Webhook>(`/webhooks/${id}`) : null), [id]);
  const toggle = useActiveToggle(refresh);
  const view = useView(!id ? 'Add webhook' : webhook ? `${webhook.name} · Webhooks` : 'Webhook');
  // The title takes focus when this view replaces another (useView; not on the first load, where focus stays at the
  // top of the page) and after a save, which re-renders the form under the cursor.
  const titleRef = useCallback((el: HTMLHeadingElement | null) => { title.current = el; view(el); }, [view]);

  useEffect(() => {
    get<EventTypeInfo[]>('/event-types').then(setEventTypes, () => setEventTypes([]));
  }, []);

  const back = <a href="#/webhooks" className="back-link">← All webhooks</a>;
  if (!eventTypes || (id && !webhook && !error)) return <>{back}<p className="muted" aria-busy="true">Loading…</p></>;
  if (id && error && !webhook) return <>{back}<p className="form-error" role="alert">{error}</p></>;

  if (!id) {
    const create = async (values: WebhookFormValues) => {
      const created = await post<Webhook & { secret: string }>('/webhooks', body(values));
      justCreatedSecret = { id: created.id, secret: created.secret };
      // Its warning (plain http://) is the callout at the top of the page that follows: the message stays short.
      toast('Webhook created');
      navigate(`/webhooks/${created.id}`);
    };
    return (
      <>
        {back}
        <div className="card">
          <h2 tabIndex={-1} ref={titleRef}>Add webhook</h2>
          <WebhookForm initial={NEW_WEBHOOK} eventTypes={eventTypes} submitLabel="Add webhook"
            onSubmit={create} onCancel={() => navigate('/webhooks')} />
        </div>
      </>
    );
  }

  const w = webhook as Webhook;
  const initialSecret = justCreatedSecret?.id === w.id ? justCreatedSecret.secret : null;
  const save = async (values: WebhookFormValues) => {
    await patch<Webhook>(`/webhooks/${w.id}`, body(values));
    toast('Webhook saved'); // a warning stays in the callout above the form
    await refresh();
    setFormKey((k) => k + 1);
    title.current?.focus();
  };
  const setActive = (active: boolean) => toggle.setActive(w, active);
  // The callout and its button go once the webhook is active again: focus moves to the switch, which says so.
  const reEnable = async () => {
    await setActive(true);
    document.querySelector<HTMLElement>('.editor-header [role="switch"]')?.focus();
  };

  return (
    <>
      {back}
      <div className="editor-header">
        <div>
          <h2 className="editor-title" tabIndex={-1} ref={titleRef}>{w.name}</h2>
          <p className="mono muted small">{w.url}</p>
          {w.max_per_second !== null && (
            <p className="muted small" data-testid="throttle">At most {w.max_per_second} deliveries a second</p>
          )}
        </div>
        <div className="status-cell">
          <Switch checked={w.active} busy={toggle.busyId === w.id} label="Webhook active" onChange={setActive} />
          {w.active ? <Badge tone="green">Active</Badge>
            : isAutoDisabled(w) ? <Badge tone="red">Auto-disabled</Badge> : <Badge tone="grey">Disabled</Badge>}
        </div>
      </div>
      {isAutoDisabled(w) && (
        <div className="callout callout-red" role="alert">
          <div>
            <strong>Waypost disabled this webhook.</strong> {w.disabled_reason}
            <p className="small">
              Fix the endpoint (send a test to check it), then re-enable. Cancelled deliveries can be redelivered from
              Logs.
            </p>
          </div>
          <button type="button" className="button button-primary" onClick={reEnable}>Re-enable</button>
        </div>
      )}
      {w.warning && <div className="callout callout-amber">{w.warning}</div>}
      {neverMatched(w) && <div className="callout callout-amber" data-testid="filter-never">{neverMatched(w)}</div>}
      <div className="editor-grid">
        <div className="card">
          <h3>Details</h3>
          <WebhookForm key={formKey} initial={formValues(w)} eventTypes={eventTypes}
            submitLabel="Save changes" onSubmit={save} />
        </div>
        <div className="editor-side">
          <TestPanel webhookId={w.id} events={w.events} eventTypes={eventTypes} />
          <SecretPanel webhookId={w.id} initialSecret={initialSecret} previousExpiresAt={w.previous_secret_expires_at}
            onRotated={refresh} />
          <div className="card">
            <h3>Deliveries</h3>
            <p className="muted small">
              Created {formatDate(w.created_at)}. Every delivery and attempt is kept in the log.
            </p>
            <div className="button-row">
              <a className="button button-small" href={`#/logs?webhook_id=${w.id}`}>View deliveries</a>
              {w.active && (
                <button type="button" className="button button-small" onClick={() => setRecovering(true)}>
                  Recover…
                </button>
              )}
            </div>
          </div>
          <div className="card card-danger">
            <h3>Delete webhook</h3>
            <p className="muted small">Stops all deliveries to this endpoint. Its delivery history stays in the log.</p>
            <button type="button" className="button button-danger" onClick={() => setConfirmDelete(true)}>
              Delete webhook…
            </button>
          </div>
        </div>
      </div>
      {toggle.dialogs}
      {recovering && <RecoverDialog webhook={w} onClose={() => setRecovering(false)} onDone={() => void refresh()} />}
      {confirmDelete && (
        <ConfirmDialog
          title={`Delete “${w.name}”?`}
          confirmLabel="Delete webhook"
          danger
          onClose={() => setConfirmDelete(false)}
          onConfirm={async () => {
            await del(`/webhooks/${w.id}`);
            toast('Webhook deleted');
            navigate('/webhooks');
          }}
        >
          <p>
            Waypost stops sending events to <span className="mono">{w.url}</span> and cancels its pending deliveries.
            This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
