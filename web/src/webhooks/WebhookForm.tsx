// Name, URL and event checkboxes, with the server's validation messages shown next to the field they concern.
import { useState, type FormEvent } from 'react';
import { ApiError } from '../api';
import { Field } from '../components/Field';
import type { EventTypeInfo } from '../types';

export interface WebhookFormValues {
  name: string;
  url: string;
  events: string[];
}

interface Props {
  initial: WebhookFormValues;
  eventTypes: EventTypeInfo[];
  submitLabel: string;
  onSubmit: (values: WebhookFormValues) => Promise<void>;
  onCancel?: () => void;
}

export function WebhookForm({ initial, eventTypes, submitLabel, onSubmit, onCancel }: Props) {
  const [values, setValues] = useState(initial);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  const toggleEvent = (type: string, on: boolean) =>
    setValues((v) => ({ ...v, events: on ? [...v.events, type] : v.events.filter((e) => e !== type) }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    // The same checks the server makes, so the common mistakes show at once; the server still has the last word.
    if (!values.name.trim()) return setError(new ApiError(400, 'invalid_field', 'Give the webhook a name.', 'name'));
    if (!/^https?:\/\/\S+$/i.test(values.url.trim())) return setError(new ApiError(400, 'invalid_url', 'Enter a valid URL starting with https:// (or http://).', 'url'));
    if (values.events.length === 0) return setError(new ApiError(400, 'invalid_field', 'Choose at least one event.', 'events'));
    setBusy(true);
    try {
      await onSubmit({ ...values, name: values.name.trim(), url: values.url.trim() });
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'error', String(err), null));
    } finally {
      setBusy(false);
    }
  };

  const fieldError = (f: string) => (error?.field === f ? error.message : null);
  const allOn = values.events.length === eventTypes.length;

  return (
    <form onSubmit={submit} noValidate className="form">
      {error && !['name', 'url', 'events'].includes(error.field ?? '') && <p className="form-error" role="alert">{error.message}</p>}
      <Field label="Name" hint="For you: shown in lists, logs and alert e-mails." error={fieldError('name')}>
        <input type="text" value={values.name} maxLength={200} onChange={(e) => setValues({ ...values, name: e.target.value })} placeholder="Bookings to CRM" />
      </Field>
      <Field label="Endpoint URL" hint="Where Waypost POSTs events. Must be reachable from the internet; https:// is recommended." error={fieldError('url')}>
        <input type="url" inputMode="url" className="mono" value={values.url} onChange={(e) => setValues({ ...values, url: e.target.value })} placeholder="https://example.com/webhooks/waypost" />
      </Field>
      <fieldset className={`field events-fieldset${fieldError('events') ? ' field-invalid' : ''}`} aria-describedby={fieldError('events') ? 'events-error' : undefined}>
        <legend className="field-label">Events</legend>
        <label className="check check-all">
          <input type="checkbox" checked={allOn} onChange={(e) => setValues({ ...values, events: e.target.checked ? eventTypes.map((t) => t.type) : [] })} />
          <span>All events</span>
        </label>
        <div className="event-grid">
          {eventTypes.map((t) => (
            <label key={t.type} className="check check-card">
              <input type="checkbox" checked={values.events.includes(t.type)} onChange={(e) => toggleEvent(t.type, e.target.checked)} />
              <span>
                <span className="check-title">{t.label}</span>
                <span className="mono small muted">{t.type}</span>
                <span className="small muted check-desc">{t.description}</span>
              </span>
            </label>
          ))}
        </div>
        {fieldError('events') && <p id="events-error" className="field-error" role="alert">{fieldError('events')}</p>}
      </fieldset>
      <div className="form-actions">
        {onCancel && <button type="button" className="button" onClick={onCancel}>Cancel</button>}
        <button type="submit" className="button button-primary" disabled={busy}>{busy ? 'Saving…' : submitLabel}</button>
      </div>
    </form>
  );
}
