// Name, URL, event checkboxes, the optional payload filter, throttle (deliveries per second), per-record order and
// what the payload holds (the record, or only its ids and API link).
// Every invalid field is marked at once, with the server's limits checked here
// first; the server's own messages (e.g. a private address) are shown next to the field they name, and focused.
import { useState, type FormEvent } from 'react';
import { flushSync } from 'react-dom';
import { ApiError } from '../api';
import { Field } from '../components/Field';
import { focusFirstProblem } from '../components/focus';
import { confirmLeave, useUnsavedChanges } from '../components/leaveGuard';
import type { EventTypeInfo } from '../types';
import { EventSample } from './EventSample';
import { FilterEditor } from './FilterEditor';
import { parseFilter } from './filterText';

export interface WebhookFormValues {
  name: string;
  url: string;
  events: string[];
  /** At most this many deliveries a second (across all workers); null: no limit. */
  max_per_second: number | null;
  /** The payload filter as JSON text; '' is none (sent as null). */
  filter: string;
  /** 'record': one record's events are delivered one after another, in commit order. */
  ordering: 'none' | 'record';
  /** 'minimal': only the record's ids and its API link, no personal fields. */
  payload: 'full' | 'minimal';
}

interface Props {
  initial: WebhookFormValues;
  eventTypes: EventTypeInfo[];
  submitLabel: string;
  onSubmit: (values: WebhookFormValues) => Promise<void>;
  onCancel?: () => void;
}

// The server's limits (src/webhooks/manage.ts).
export const NAME_MAX = 100;
export const URL_MAX = 2000;
export const MAX_PER_SECOND_LIMIT = 1000;
const FIELDS = ['name', 'url', 'events', 'max_per_second', 'filter'];

type Errors = Partial<Record<'name' | 'url' | 'events' | 'max_per_second' | 'filter' | 'form', string>>;

/** The limit as typed: empty is no limit; undefined when it is not a whole number from 1 to 1000. */
export function parseLimit(text: string): number | null | undefined {
  const t = text.trim();
  if (t === '') return null;
  if (!/^\d+$/.test(t) || Number(t) < 1 || Number(t) > MAX_PER_SECOND_LIMIT) return undefined;
  return Number(t);
}

/** Every problem the server would report, one per field, so the user fixes them in one go. */
export function checkWebhook(values: WebhookFormValues, limitText = ''): Errors {
  const errors: Errors = {};
  const name = values.name.trim();
  const url = values.url.trim();
  if (!name) errors.name = 'Give the webhook a name.';
  else if (name.length > NAME_MAX) errors.name = `Use at most ${NAME_MAX} characters (this is ${name.length}).`;
  if (!url) errors.url = 'Enter the endpoint URL, starting with https://.';
  else if (!/^https?:\/\/\S+$/i.test(url)) errors.url = 'Enter a valid URL starting with https:// (or http://).';
  else if (url.length > URL_MAX) errors.url = `Use at most ${URL_MAX} characters.`;
  if (values.events.length === 0) errors.events = 'Choose at least one event.';
  if (parseFilter(values.filter) === undefined) errors.filter = 'The filter is not valid JSON.';
  if (parseLimit(limitText) === undefined) {
    errors.max_per_second = `Enter a whole number from 1 to ${MAX_PER_SECOND_LIMIT}, or leave it empty for no limit.`;
  }
  return errors;
}

const sameEvents = (a: string[], b: string[]) => a.length === b.length && a.every((e) => b.includes(e));

export function WebhookForm({ initial, eventTypes, submitLabel, onSubmit, onCancel }: Props) {
  const [values, setValues] = useState(initial);
  const initialLimit = initial.max_per_second === null ? '' : String(initial.max_per_second);
  const [limitText, setLimitText] = useState(initialLimit);
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const dirty = values.name !== initial.name || values.url !== initial.url
    || !sameEvents(values.events, initial.events) || limitText.trim() !== initialLimit
    || values.filter.trim() !== initial.filter.trim() || values.ordering !== initial.ordering
    || values.payload !== initial.payload;
  const guard = useUnsavedChanges(dirty);

  const toggleEvent = (type: string, on: boolean) =>
    setValues((v) => ({ ...v, events: on ? [...v.events, type] : v.events.filter((e) => e !== type) }));

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const found = checkWebhook(values, limitText);
    flushSync(() => setErrors(found));
    if (Object.keys(found).length > 0) {
      focusFirstProblem(form); // the first field to fix; the others are marked too
      return;
    }
    setBusy(true);
    guard.leaving();
    try {
      const max = parseLimit(limitText) ?? null;
      await onSubmit({ ...values, name: values.name.trim(), url: values.url.trim(), max_per_second: max,
        filter: values.filter.trim() });
    } catch (err) {
      guard.stay();
      const apiErr = err instanceof ApiError ? err : new ApiError(0, 'error', String(err), null);
      const field = FIELDS.includes(apiErr.field ?? '') ? (apiErr.field as keyof Errors) : 'form';
      // Shown and focused like the checks above: a refused URL is the first thing a newcomer meets.
      flushSync(() => setErrors({ [field]: apiErr.message }));
      focusFirstProblem(form);
    } finally {
      setBusy(false);
    }
  };

  const cancel = () => {
    if (onCancel && confirmLeave()) {
      guard.leaving();
      onCancel();
    }
  };
  const allOn = values.events.length === eventTypes.length;
  const count = Object.keys(errors).filter((f) => f !== 'form').length;

  return (
    <form onSubmit={submit} noValidate className="form">
      {errors.form && <p className="form-error" role="alert">{errors.form}</p>}
      {count > 1 && <p className="form-error" role="alert">Fix the {count} fields marked below.</p>}
      <div data-field="name">
        <Field label="Name" error={errors.name}
          hint={`For you: shown in lists, logs and alert e-mails. Up to ${NAME_MAX} characters.`}>
          <input type="text" value={values.name} maxLength={NAME_MAX} placeholder="Bookings to CRM"
            onChange={(e) => setValues({ ...values, name: e.target.value })} />
        </Field>
      </div>
      <div data-field="url">
        <Field label="Endpoint URL" error={errors.url}
          hint="Where Waypost POSTs events. Must be reachable from the internet; https:// is recommended.">
          <input type="url" inputMode="url" className="mono" value={values.url} maxLength={URL_MAX}
            onChange={(e) => setValues({ ...values, url: e.target.value })}
            placeholder="https://example.com/webhooks/waypost" />
        </Field>
      </div>
      <fieldset data-field="events" className={`field events-fieldset${errors.events ? ' field-invalid' : ''}`}
        aria-describedby={errors.events ? 'events-error' : undefined}>
        <legend className="field-label">Events</legend>
        <label className="check check-all">
          <input type="checkbox" checked={allOn}
            onChange={(e) => setValues({ ...values, events: e.target.checked ? eventTypes.map((t) => t.type) : [] })} />
          <span>All events</span>
        </label>
        <div className="event-grid">
          {eventTypes.map((t) => (
            <div key={t.type} className="event-option">
              <label className="check check-card">
                <input type="checkbox" checked={values.events.includes(t.type)}
                  onChange={(e) => toggleEvent(t.type, e.target.checked)} />
                <span>
                  <span className="check-title">{t.label}</span>
                  <span className="mono small muted">{t.type}</span>
                  <span className="small muted check-desc">{t.description}</span>
                </span>
              </label>
              <EventSample event={t} payload={values.payload} />
            </div>
          ))}
        </div>
        {errors.events && <p id="events-error" className="field-error" role="alert">{errors.events}</p>}
      </fieldset>
      <FilterEditor text={values.filter} events={values.events} error={errors.filter}
        onChange={(filter) => setValues((v) => ({ ...v, filter }))} />
      <div data-field="max_per_second">
        <Field label="Max deliveries per second (optional)" error={errors.max_per_second}
          hint={'For a small receiver: Waypost sends it at most this many events a second, retries included, '
            + 'and queues the rest. Empty: no limit.'}>
          <input type="text" inputMode="numeric" className="input-narrow" value={limitText} maxLength={4}
            onChange={(e) => setLimitText(e.target.value)} placeholder="No limit" />
        </Field>
      </div>
      <div data-field="ordering">
        <label className="check">
          <input type="checkbox" checked={values.ordering === 'record'} data-testid="ordering"
            onChange={(e) => setValues((v) => ({ ...v, ordering: e.target.checked ? 'record' : 'none' }))} />
          <span>Deliver each record&apos;s events in order</span>
        </label>
        <p className="muted small">
          A booking&apos;s events arrive one after another, as they were saved: while one is retried, the later ones
          of that booking wait (other bookings go on).
        </p>
      </div>
      <fieldset className="field" data-field="payload">
        <legend className="field-label">Payload</legend>
        <label className="check">
          <input type="radio" name="payload" value="full" checked={values.payload === 'full'} data-testid="payload-full"
            onChange={() => setValues((v) => ({ ...v, payload: 'full' }))} />
          <span>Full record</span>
        </label>
        <p className="muted small">The booking, customer or enquiry as the API shows it, names and e-mails included.</p>
        <label className="check">
          <input type="radio" name="payload" value="minimal" checked={values.payload === 'minimal'}
            data-testid="payload-minimal" onChange={() => setValues((v) => ({ ...v, payload: 'minimal' }))} />
          <span>Minimal: ids and an API link only</span>
        </label>
        <p className="muted small">
          No personal fields leave Waypost: the receiver gets the record&apos;s id, related ids and a <code>url</code>,
          and fetches what it needs with an API key.
        </p>
      </fieldset>
      <div className="form-actions">
        {onCancel && <button type="button" className="button" onClick={cancel}>Cancel</button>}
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
