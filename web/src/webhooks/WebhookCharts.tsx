// Per-webhook delivery charts on the Webhooks tab (issue 37): attempts by outcome and attempt latency (p50/p95)
// over 24 hours, 7 days or 30 days, with the webhook's health (success rate, last success, current streak). The
// server answers from counters kept as deliveries are written (docs/getting-started.md#delivery-charts).
import { useMemo, useState } from 'react';
import { get } from '../api';
import { RangePicker, stepLabel } from '../components/RangePicker';
import { TimeChart, type ChartSeries } from '../components/TimeChart';
import { timeAgo } from '../format';
import type { ChartRange, Webhook, WebhookHealth, WebhookStatsView } from '../types';
import { usePolling } from '../usePolling';

const ms = (v: number) => (v >= 1000 ? `${v / 1000} s` : `${v} ms`);

/** "98.5%" of attempts succeeded; "—" without attempts. */
export function rateText(h: WebhookHealth | undefined): string {
  return h?.success_rate == null ? '—' : `${(Math.floor(h.success_rate * 1000) / 10).toString()}%`;
}

export function streakText(h: WebhookHealth | undefined): string {
  if (!h?.streak) return 'No attempts yet';
  const n = h.streak.attempts;
  return `${h.streak.kind === 'succeeding' ? 'Succeeding' : 'Failing'} for ${n} attempt${n === 1 ? '' : 's'}`;
}

export function WebhookCharts({ webhooks }: { webhooks: Webhook[] }) {
  const [chosen, setChosen] = useState<string>('');
  const [range, setRange] = useState<ChartRange>('24h');
  const id = webhooks.some((w) => w.id === chosen) ? chosen : webhooks[0]?.id;
  const { data, error } = usePolling(
    () => (id ? get<WebhookStatsView>(`/webhooks/${id}/stats?range=${range}`) : Promise.resolve(null)),
    [id, range], 10_000);
  const view = data && data.webhook_id === id && data.range === range ? data : null;
  const starts = useMemo(() => view?.points.map((p) => p.start) ?? [], [view]);
  const outcomes = useMemo<ChartSeries[]>(() => (view ? [
    { label: 'Succeeded', color: '#1f883d', values: view.points.map((p) => p.succeeded) },
    { label: 'Retried', color: '#bf8700', values: view.points.map((p) => p.retried), dash: [6, 3] },
    { label: 'Failed', color: '#d1242f', values: view.points.map((p) => p.failed), dash: [2, 2] },
  ] : []), [view]);
  const latency = useMemo<ChartSeries[]>(() => (view ? [
    { label: 'p50', color: '#0b5cff', values: view.points.map((p) => p.p50_ms), points: true },
    { label: 'p95', color: '#8250df', values: view.points.map((p) => p.p95_ms), dash: [6, 3], points: true },
  ] : []), [view]);
  if (webhooks.length === 0) return null;
  const h = view?.health;
  return (
    <section className="card charts" aria-labelledby="delivery-charts">
      <div className="charts-head">
        <h3 id="delivery-charts">Deliveries</h3>
        <label className="inline-field">
          <span>Webhook</span>
          <select value={id} onChange={(e) => setChosen(e.target.value)}>
            {webhooks.map((w) => <option key={w.id} value={w.id}>{w.name}</option>)}
          </select>
        </label>
        <RangePicker value={range} onChange={setRange} />
      </div>
      {error && <p className="form-error" role="alert">{error}</p>}
      {view && (
        <>
          <dl className="health" data-testid="webhook-health">
            <div><dt>Success rate</dt><dd>{rateText(h)}</dd></div>
            <div><dt>Last success</dt><dd>{h?.last_success_at ? timeAgo(h.last_success_at) : 'Never'}</dd></div>
            <div><dt>Current streak</dt><dd>{streakText(h)}</dd></div>
            <div><dt>Latency p50 / p95</dt>
              <dd>{view.totals.p50_ms === null ? '—'
                : `${ms(view.totals.p50_ms)} / ${ms(view.totals.p95_ms ?? 0)}`}</dd>
            </div>
          </dl>
          <div className="chart-grid">
            <TimeChart title="Attempts by outcome" starts={starts} series={outcomes} formatStart={stepLabel(range)} />
            <TimeChart title="Attempt latency (ms, upper bound)" starts={starts} series={latency} format={ms}
              formatStart={stepLabel(range)} />
          </div>
        </>
      )}
    </section>
  );
}
