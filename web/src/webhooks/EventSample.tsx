// A "Sample" button beside an event's checkbox: opens the payload an event of that type is delivered in (the sample
// record `webhooks test` sends) in a dialog. Outside the checkbox's label, so pressing it never ticks the event.
import { useEffect, useRef, useState } from 'react';
import { get } from '../api';
import { CopyButton } from '../components/CopyButton';
import { Dialog } from '../components/Dialog';
import type { EventTypeInfo } from '../types';
import './EventSample.css';

type Payload = 'full' | 'minimal';

function SampleDialog({ event, payload, onClose }: { event: EventTypeInfo; payload: Payload; onClose: () => void }) {
  const [body, setBody] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    get<unknown>(`/events/${encodeURIComponent(event.type)}/sample?payload=${payload}`)
      .then((sample) => setBody(JSON.stringify(sample, null, 2)))
      .catch((e: Error) => setError(e.message));
  }, [event.type, payload]);
  return (
    <Dialog
      title={`${event.label}: sample ${payload === 'minimal' ? 'minimal ' : ''}payload`}
      onClose={onClose}
      wide
      footer={body && <CopyButton text={body} what="payload" />}
    >
      <p className="small muted">
        The JSON body of a <code>{event.type}</code> delivery, with a sample record. The schema and the request
        headers are in the REST API&apos;s OpenAPI document (<code>openapi.json</code>, section <code>webhooks</code>).
      </p>
      {error && <p className="form-error" role="alert">{error}</p>}
      {!error && body === null && <p className="muted" role="status">Loading…</p>}
      {body !== null && (
        <pre className="code-block event-sample-body" tabIndex={0} aria-label={`${event.type} sample payload`}>
          {body}
        </pre>
      )}
    </Dialog>
  );
}

/** `payload`: the webhook's choice in the form, so the sample is the body that webhook would get. */
export function EventSample({ event, payload = 'full' }: { event: EventTypeInfo; payload?: Payload }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const wasOpen = useRef(false);
  // Back to the button once the dialog is gone (the page behind a modal dialog is inert until then).
  useEffect(() => {
    if (wasOpen.current && !open) button.current?.focus();
    wasOpen.current = open;
  }, [open]);
  return (
    <>
      <button
        ref={button}
        type="button"
        className="link-button event-sample-button"
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
      >
        {/* Named by its text, not aria-label: the checkbox alone answers to the event's label. */}
        Sample payload<span className="visually-hidden"> of {event.label}</span>
      </button>
      {open && <SampleDialog event={event} payload={payload} onClose={() => setOpen(false)} />}
    </>
  );
}
