// "Send test": posts a sample event to the endpoint now and shows what the receiver answered.
import { useState } from 'react';
import { ApiError, post } from '../api';
import { Badge } from '../components/Badge';
import { Field } from '../components/Field';
import { prettyBody } from '../format';
import type { EventTypeInfo, TestResult } from '../types';

export function TestPanel({ webhookId, events, eventTypes }: {
  webhookId: string; events: string[]; eventTypes: EventTypeInfo[];
}) {
  const [eventType, setEventType] = useState(events[0] ?? eventTypes[0]?.type ?? '');
  const [result, setResult] = useState<TestResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const send = async () => {
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      setResult(await post<TestResult>(`/webhooks/${webhookId}/test`, { event_type: eventType }));
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="card">
      <div className="card-header">
        <div>
          <h3>Send a test event</h3>
          <p className="muted small">
            Sends a sample payload, signed like a real one, and shows the response. Test deliveries appear in Logs.
          </p>
        </div>
      </div>
      <div className="inline-form">
        <Field label="Event">
          <select value={eventType} onChange={(e) => setEventType(e.target.value)}>
            {eventTypes.map((t) => <option key={t.type} value={t.type}>{t.label} ({t.type})</option>)}
          </select>
        </Field>
        <button type="button" className="button button-primary" onClick={send} disabled={busy}>
          {busy ? 'Sending…' : 'Send test'}
        </button>
      </div>
      {error && <p className="form-error" role="alert">{error}</p>}
      {result && (
        <div className="test-result" data-testid="test-result" role="status">
          <div className="test-result-summary">
            <Badge tone={result.success ? 'green' : 'red'}>{result.success ? 'Delivered' : 'Failed'}</Badge>
            {result.response && <span>HTTP <strong>{result.response.status}</strong></span>}
            <span className="muted">{result.duration_ms} ms</span>
            <a className="small" href={`#/logs?delivery=${result.delivery_id}`}>View in Logs</a>
          </div>
          {result.error && <p className="reason">{result.error}</p>}
          {result.response && (
            <>
              <h4>Response body</h4>
              <pre className="code-block" tabIndex={0} aria-label="Test response body">
                {prettyBody(result.response.body) || <span className="muted">(empty)</span>}
              </pre>
            </>
          )}
        </div>
      )}
    </div>
  );
}
