// Every delivery, newest first, with filters (webhook, deleted ones too; event, status, time), a search by what a
// person remembers (a traveller's e-mail or name, a trip's title) or by id (dlv_…, evt_…, "booking 1042"; the server
// reads the box: src/webhooks/log-search.ts) and pages; a row says which record it concerns and opens its details.
import { useEffect, useState } from 'react';
import { get, query } from '../api';
import { Badge, deliveryLabel, deliveryTone } from '../components/Badge';
import { EmptyState } from '../components/EmptyState';
import { LoadingRows } from '../components/LoadingRows';
import { Pagination } from '../components/Pagination';
import { formatDate, formatTime, recordLabel, timeAgo } from '../format';
import type { Delivery, EventTypeInfo, LogWebhook, Page } from '../types';
import { LIVE_INTERVAL_MS, usePolling } from '../usePolling';
import { DeliveryPanel } from './DeliveryPanel';
import { updateLogParams } from './params';
import { LiveIndicator } from '../components/LiveIndicator';
import { TimeRangeFields } from '../components/TimeRangeFields';

const PER_PAGE = 25;
/** The records of each kind a text search reaches (src/webhooks/log-search.ts RECORDS_PER_KIND). */
const RECORDS_PER_KIND = 100;

export function DeliveriesLog({ params }: { params: URLSearchParams }) {
  const filters = {
    webhook_id: params.get('webhook_id') ?? '',
    event_type: params.get('event_type') ?? '',
    status: params.get('status') ?? '',
    since: params.get('since') ?? '',
    until: params.get('until') ?? '',
    q: params.get('q') ?? '',
  };
  const page = Math.max(1, Number(params.get('page')) || 1);
  const openId = params.get('delivery');
  const [webhooks, setWebhooks] = useState<LogWebhook[]>([]);
  const [eventTypes, setEventTypes] = useState<EventTypeInfo[]>([]);
  const [typed, setTyped] = useState(filters.q);
  useEffect(() => setTyped(filters.q), [filters.q]);
  useEffect(() => {
    get<{ webhooks: LogWebhook[] }>('/deliveries/webhooks').then((r) => setWebhooks(r.webhooks), () => {});
    get<EventTypeInfo[]>('/event-types').then(setEventTypes, () => {});
  }, []);

  const key = JSON.stringify({ ...filters, page });
  const { data, error } = usePolling(
    async () => get<Page<Delivery>>(`/deliveries${query({ ...filters, page, perpage: PER_PAGE })}`),
    [key], LIVE_INTERVAL_MS);
  const set = (changes: Record<string, string | null>) => updateLogParams(params, { page: null, ...changes });
  const hasFilters = Object.values(filters).some(Boolean);

  return (
    <>
      <form className="filters" aria-label="Filter deliveries"
        onSubmit={(e) => { e.preventDefault(); set({ q: typed.trim() }); }}>
        <label className="filter-search">
          <span className="field-label">Search</span>
          <input type="search" aria-label="Search deliveries by e-mail, name, trip or id" value={typed}
            placeholder="Search by e-mail, name, trip or id"
            onChange={(e) => setTyped(e.target.value)}
            onBlur={() => { if (typed.trim() !== filters.q) set({ q: typed.trim() }); }} />
        </label>
        <label>
          <span className="field-label">Webhook</span>
          <select aria-label="Webhook" value={filters.webhook_id} onChange={(e) => set({ webhook_id: e.target.value })}>
            <option value="">All webhooks</option>
            {webhooks.map((w) => <option key={w.id} value={w.id}>{w.deleted ? `${w.name} (deleted)` : w.name}</option>)}
          </select>
        </label>
        <label>
          <span className="field-label">Event</span>
          <select aria-label="Event" value={filters.event_type} onChange={(e) => set({ event_type: e.target.value })}>
            <option value="">All events</option>
            {eventTypes.map((t) => <option key={t.type} value={t.type}>{t.label}</option>)}
          </select>
        </label>
        <label>
          <span className="field-label">Status</span>
          <select aria-label="Status" value={filters.status} onChange={(e) => set({ status: e.target.value })}>
            <option value="">Any status</option>
            <option value="succeeded">Succeeded</option>
            <option value="failed">Failed</option>
            <option value="pending">Pending (retrying)</option>
            <option value="cancelled">Cancelled</option>
          </select>
        </label>
        <TimeRangeFields since={filters.since} until={filters.until} onChange={set} />
        {hasFilters && (
          <button type="button" className="link-button" onClick={() => updateLogParams(new URLSearchParams(), {})}>
            Clear filters
          </button>
        )}
        <LiveIndicator />
      </form>
      {error && <p className="form-error" role="alert">{error}</p>}
      {data?.search?.more && (
        <p className="muted small" role="status">
          More than {RECORDS_PER_KIND} travellers, bookings or trips match “{filters.q}”: these are the deliveries
          about the newest {RECORDS_PER_KIND} of each. Type more of the e-mail, name or trip to narrow it.
        </p>
      )}
      {error && !data ? null : !data ? <LoadingRows label="Loading deliveries…" rows={5} />
        : data.items.length === 0 ? (
        <EmptyState title={hasFilters ? 'No deliveries match these filters' : 'No deliveries yet'}>
          {filters.q
            ? 'The search finds travellers by e-mail, name or phone, trips by title, and delivery, event or record ids.'
            : hasFilters ? 'Try a wider time range or another status.'
            : 'Deliveries appear here as soon as an event is sent to a webhook. Send a test from a webhook to see one.'}
        </EmptyState>
      ) : (
        <>
          <div className="table-wrap">
            <table className="table table-hover" aria-label="Deliveries">
              <thead>
                <tr>
                  <th scope="col">Status</th><th scope="col">Event</th><th scope="col">Webhook</th>
                  <th scope="col">Attempts</th><th scope="col">Created</th>
                  <th scope="col"><span className="visually-hidden">Details</span></th>
                </tr>
              </thead>
              <tbody>
                {data.items.map((d) => (
                  <tr key={d.id} data-delivery={d.id} aria-selected={openId === d.id}
                    onClick={() => updateLogParams(params, { delivery: d.id })}>
                    <td>
                      <Badge tone={deliveryTone(d.status)}>
                        {deliveryLabel(d.status)}{d.last_status ? ` · ${d.last_status}` : ''}
                      </Badge>
                    </td>
                    <td>
                      <span className="mono small">{d.event_type}</span>
                      {recordLabel(d.resource, d.record_id) && (
                        <div className="small" data-testid="record">{recordLabel(d.resource, d.record_id)}</div>
                      )}
                      {d.test && <span className="chip chip-test">Test</span>}
                      {d.redelivery_of && <span className="chip">Redelivery</span>}
                    </td>
                    <td>{d.webhook_name ?? <span className="muted">{d.webhook_id}</span>}</td>
                    <td>
                      {d.attempts}
                      {d.status === 'pending' && d.next_attempt_at
                        ? <div className="muted small">next at {formatTime(d.next_attempt_at)}</div> : null}
                    </td>
                    <td className="small nowrap" title={formatDate(d.created_at)}>{timeAgo(d.created_at)}</td>
                    <td className="actions">
                      <button type="button" className="button button-small" aria-label={`Details of delivery ${d.id}`}
                        onClick={(e) => { e.stopPropagation(); updateLogParams(params, { delivery: d.id }); }}>
                        Details
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pagination page={page} perpage={PER_PAGE} total={data.total}
            onPage={(p) => updateLogParams(params, { page: String(p) })} />
        </>
      )}
      {openId && <DeliveryPanel id={openId} onClose={() => updateLogParams(params, { delivery: null })} />}
    </>
  );
}
