// Calls per API key over 24 hours, 7 days or 30 days by status (2xx, 4xx, 429, 5xx), on the API Keys tab
// (issue 37), from hourly counters the REST API keeps as it answers.
import { useMemo, useState } from 'react';
import { get } from '../api';
import { RangePicker, stepLabel } from '../components/RangePicker';
import { TimeChart, type ChartSeries } from '../components/TimeChart';
import type { ApiKey, ChartRange, KeyUsageSeries } from '../types';
import { usePolling } from '../usePolling';

export function KeyUsageChart({ keys }: { keys: ApiKey[] }) {
  const [chosen, setChosen] = useState('');
  const [range, setRange] = useState<ChartRange>('24h');
  const id = keys.some((k) => k.id === chosen) ? chosen : keys[0]?.id;
  const { data, error } = usePolling(
    () => (id ? get<KeyUsageSeries>(`/keys/${id}/usage/series?range=${range}`) : Promise.resolve(null)),
    [id, range], 10_000);
  const view = data && data.key_id === id && data.range === range ? data : null;
  const starts = useMemo(() => view?.points.map((p) => p.start) ?? [], [view]);
  const series = useMemo<ChartSeries[]>(() => (view ? [
    { label: '2xx', color: '#1f883d', values: view.points.map((p) => p.ok) },
    { label: '4xx', color: '#bf8700', values: view.points.map((p) => p.client_errors), dash: [6, 3] },
    { label: '429', color: '#d1242f', values: view.points.map((p) => p.rate_limited), dash: [2, 2] },
    { label: '5xx', color: '#8250df', values: view.points.map((p) => p.server_errors), dash: [8, 2, 2, 2] },
  ] : []), [view]);
  if (keys.length === 0) return null;
  const t = view?.totals;
  return (
    <section className="card charts" aria-labelledby="key-usage-chart">
      <div className="charts-head">
        <h3 id="key-usage-chart">Calls</h3>
        <label className="inline-field">
          <span>Key</span>
          <select value={id} onChange={(e) => setChosen(e.target.value)}>
            {keys.map((k) => <option key={k.id} value={k.id}>{k.label}</option>)}
          </select>
        </label>
        <RangePicker value={range} onChange={setRange} />
      </div>
      {error && <p className="form-error" role="alert">{error}</p>}
      {view && t && (
        <>
          <p className="muted small" data-testid="key-usage-totals">
            {t.ok} answered (2xx) · {t.client_errors} client errors (4xx) · {t.rate_limited} rate-limited (429)
            · {t.server_errors} server errors (5xx)
          </p>
          <TimeChart title="Calls by status" starts={starts} series={series} formatStart={stepLabel(range)} />
        </>
      )}
    </section>
  );
}
