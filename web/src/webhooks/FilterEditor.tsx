// The payload filter of a webhook (docs/webhooks.md "Filters"): JSON conditions on the event's fields, with the
// fields of the selected event types as suggestions, and a preview over the last 50 real events of those types.
import { useEffect, useState } from 'react';
import { ApiError, get, post } from '../api';
import { addCondition, parseFilter } from './filterText';

interface FilterField { path: string; kind: string; values?: string[] }
interface Preview { matched: number; total: number }

interface Props {
  text: string;
  events: string[];
  error?: string;
  onChange: (text: string) => void;
}

/** A condition to start from for a field: its first value, a number, or exists. */
function template(f: FilterField): Record<string, unknown> {
  if (f.values) return { field: f.path, in: [f.values[0]] };
  if (f.kind === 'decimal' || f.kind === 'number') return { field: f.path, gte: 0 };
  if (f.kind === 'string') return { field: f.path, eq: '' };
  if (f.kind === 'boolean') return { field: f.path, eq: true };
  return { field: f.path, exists: true };
}

export function FilterEditor({ text, events, error, onChange }: Props) {
  const [fields, setFields] = useState<FilterField[]>([]);
  const [preview, setPreview] = useState<{ result?: Preview; problem?: string; busy?: boolean }>({});
  const key = events.join(',');

  useEffect(() => {
    if (key === '') return setFields([]);
    get<{ items: FilterField[] }>(`/events/fields?events=${encodeURIComponent(key)}`)
      .then((r) => setFields(r.items), () => setFields([]));
  }, [key]);
  useEffect(() => setPreview({}), [key, text]);

  const run = async () => {
    const filter = parseFilter(text);
    if (filter === undefined) return setPreview({ problem: 'The filter is not valid JSON.' });
    if (events.length === 0) return setPreview({ problem: 'Choose at least one event first.' });
    setPreview({ busy: true });
    try {
      setPreview({ result: await post<Preview>('/webhooks/preview-filter', { events, filter }) });
    } catch (err) {
      setPreview({ problem: err instanceof ApiError ? err.message : String(err) });
    }
  };

  const { result, problem, busy } = preview;
  return (
    <div data-field="filter" className={`field${error ? ' field-invalid' : ''}`}>
      <label className="field-label" htmlFor="webhook-filter">Filter (optional)</label>
      <p className="field-hint" id="webhook-filter-hint">
        Send only the events whose data matches, e.g. <code>{'{"field": "data.currency", "eq": "EUR"}'}</code>;
        combine conditions with <code>all</code> / <code>any</code>. Empty: every event of the chosen types.
      </p>
      <textarea id="webhook-filter" className="mono filter-text" rows={6} value={text} spellCheck={false}
        aria-describedby={`webhook-filter-hint${error ? ' filter-error' : ''}`} aria-invalid={error ? true : undefined}
        placeholder='{"all": [{"field": "data.status", "in": ["booked", "completed"]}]}'
        onChange={(e) => onChange(e.target.value)} />
      {error && <p id="filter-error" className="field-error" role="alert">{error}</p>}
      {fields.length > 0 && (
        <details className="filter-fields">
          <summary className="small">
            Fields of the chosen events ({fields.length}): click one to add a condition
          </summary>
          <div className="chips">
            {fields.map((f) => (
              <button key={f.path} type="button" className="chip chip-button mono"
                title={f.values?.join(', ') ?? f.kind} onClick={() => onChange(addCondition(text, template(f)))}>
                {f.path}
              </button>
            ))}
          </div>
        </details>
      )}
      <div className="filter-preview">
        <button type="button" className="button button-small" onClick={() => void run()} disabled={busy}>
          {busy ? 'Trying…' : 'Preview on recent events'}
        </button>
        <span role="status" className="small" data-testid="filter-preview">
          {problem ? <span className="field-error">{problem}</span>
            : !result ? null
              : result.total === 0 ? 'No stored events of these types yet to try it on.'
                : `Would have sent ${result.matched} of the last ${result.total} events.`}
          {result && result.total > 0 && result.matched === 0 && ' It matches none: it can be saved, but check it.'}
        </span>
      </div>
    </div>
  );
}
