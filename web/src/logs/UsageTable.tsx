// Per-key API usage over the last days: requests, client errors (4xx) and rate-limited requests (429); one key
// only when opened from its row in the API Keys tab (#/logs?view=usage&key=…).
import { get } from '../api';
import { EmptyState } from '../components/EmptyState';
import type { KeyUsage } from '../types';
import { usePolling } from '../usePolling';
import { updateLogParams } from './params';

/** The last 7 UTC days, oldest first, whether or not the key was used on them. */
function lastDays(n = 7): string[] {
  const today = Date.now();
  return Array.from({ length: n }, (_, i) => new Date(today - (n - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

function DayBars({ days }: { days: KeyUsage['days'] }) {
  const byDay = new Map(days.map((d) => [d.day, d.requests]));
  const slots = lastDays().map((day) => ({ day, requests: byDay.get(day) ?? 0 }));
  const max = Math.max(1, ...slots.map((d) => d.requests));
  return (
    <div className="bars" aria-hidden="true">
      {slots.map((d) => (
        <span key={d.day} className={`bar${d.requests ? '' : ' bar-empty'}`}
          style={{ height: `${d.requests ? Math.max(4, (d.requests / max) * 28) : 2}px` }}
          title={`${d.day}: ${d.requests} requests`} />
      ))}
    </div>
  );
}

export function UsageTable({ keyId = null }: { keyId?: string | null }) {
  const { data: all, error } = usePolling(async () => {
    const res = await get<KeyUsage[] | { keys: KeyUsage[] }>('/keys/usage');
    return Array.isArray(res) ? res : res.keys;
  }, [], 5000);
  const data = all && keyId ? all.filter((u) => u.key_id === keyId) : all;
  return (
    <>
      <p className="muted">Requests per API key over the last 7 days (counts are written every few seconds).</p>
      {error && <p className="form-error" role="alert">{error}</p>}
      {keyId && all && (
        <p className="small">
          {data?.length ? <>Showing <strong>{data[0].label}</strong> only. </> : 'This key no longer exists. '}
          <button type="button" className="link-button"
            onClick={() => updateLogParams(new URLSearchParams(), { view: 'usage' })}>Show all keys</button>
        </p>
      )}
      {!data ? <p className="muted" aria-busy="true">Loading usage…</p> : data.length === 0 ? (
        <EmptyState title="No API keys yet">
          Create a key in the API Keys tab; its requests are counted here.
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-label="API usage per key">
            <thead>
              <tr>
                <th scope="col">Key</th><th scope="col" className="num">Requests</th>
                <th scope="col" className="num">4xx errors</th><th scope="col" className="num">429 rate-limited</th>
                <th scope="col">Last 7 days</th>
              </tr>
            </thead>
            <tbody>
              {data.map((u) => (
                <tr key={u.key_id} data-usage={u.label}>
                  <td className="strong">{u.label}</td>
                  <td className="num" data-testid="usage-requests">{u.totals.requests.toLocaleString()}</td>
                  <td className={`num${u.totals.client_errors ? ' text-amber' : ''}`} data-testid="usage-4xx">
                    {u.totals.client_errors.toLocaleString()}
                  </td>
                  <td className={`num${u.totals.rate_limited ? ' text-red' : ''}`}>
                    {u.totals.rate_limited.toLocaleString()}
                  </td>
                  <td><DayBars days={u.days} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
