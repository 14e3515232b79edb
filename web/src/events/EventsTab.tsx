// Events: every event the feed keeps, newest first, whatever the subscriptions, filtered by type (booking.* too) and
// record, paged by cursor; a row opens the event with what happened to it at each webhook (EventPanel).
import { useEffect, useState } from 'react';
import { get, query } from '../api';
import { EmptyState } from '../components/EmptyState';
import { LoadingRows } from '../components/LoadingRows';
import { CursorPagination } from '../components/Pagination';
import { useView } from '../components/view';
import { formatDate, timeAgo } from '../format';
import type { EventListPage, EventTypeInfo } from '../types';
import { LIVE_INTERVAL_MS, usePolling } from '../usePolling';
import { EventPanel } from './EventPanel';
import { LiveIndicator } from '../components/LiveIndicator';
import { updateEventParams } from './params';
import './events.css';

const PER_PAGE = 25;

/** `booking:1042` → "booking 1042", as the Logs tab names records. */
export const recordText = (record: string | null) => (record ? record.replace(':', ' ') : '—');

export function EventsTab({ params }: { params: URLSearchParams }) {
  const heading = useView('Events');
  const filters = { type: params.get('type') ?? '', record: params.get('record') ?? '' };
  const after = params.get('after') ?? '';
  const openId = params.get('event');
  const [eventTypes, setEventTypes] = useState<EventTypeInfo[]>([]);
  const [typed, setTyped] = useState(filters.record);
  useEffect(() => setTyped(filters.record), [filters.record]);
  useEffect(() => { get<EventTypeInfo[]>('/event-types').then(setEventTypes, () => {}); }, []);

  const key = JSON.stringify({ ...filters, after });
  const { data, error } = usePolling(
    () => get<EventListPage>(`/events${query({ ...filters, after, perpage: PER_PAGE })}`), [key], LIVE_INTERVAL_MS);
  const set = (changes: Record<string, string | null>) => updateEventParams(params, { after: null, ...changes });
  const hasFilters = Boolean(filters.type || filters.record);
  const prefixes = [...new Set(eventTypes.map((t) => t.type.split('.')[0]))];

  return (
    <>
      <div className="section-header">
        <div>
          <h2 tabIndex={-1} ref={heading}>Events</h2>
          <p className="muted">
            Every event Waypost recorded, whichever webhooks subscribe to it: open one to see what each webhook did
            with it, or send it to a webhook.
          </p>
        </div>
      </div>
      <form className="filters" aria-label="Filter events"
        onSubmit={(e) => { e.preventDefault(); set({ record: typed.trim() }); }}>
        <label>
          <span className="field-label">Event type</span>
          <select aria-label="Event type" value={filters.type} onChange={(e) => set({ type: e.target.value })}>
            <option value="">All events</option>
            {prefixes.map((p) => <option key={p} value={`${p}.*`}>Any {p} event ({p}.*)</option>)}
            {eventTypes.map((t) => <option key={t.type} value={t.type}>{t.label}</option>)}
          </select>
        </label>
        <label className="filter-search">
          <span className="field-label">Record</span>
          <input type="search" aria-label="Record, e.g. booking:1042" value={typed} placeholder="booking:1042"
            onChange={(e) => setTyped(e.target.value)}
            onBlur={() => { if (typed.trim() !== filters.record) set({ record: typed.trim() }); }} />
        </label>
        {hasFilters && (
          <button type="button" className="link-button" onClick={() => updateEventParams(new URLSearchParams(), {})}>
            Clear filters
          </button>
        )}
        <LiveIndicator />
      </form>
      {error && <p className="form-error" role="alert">{error}</p>}
      {error && !data ? null : !data ? <LoadingRows label="Loading events…" rows={5} />
        : data.items.length === 0 ? (
        <EmptyState title={hasFilters ? 'No events match these filters' : after ? 'No older events' : 'No events yet'}>
          {hasFilters ? 'Try another type, or a record written as kind:id (booking:1042, customer:12).'
            : 'Events appear here as soon as WordPress (or the Host API) writes a booking, a payment, a customer…'}
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table table-hover" aria-label="Events">
            <thead>
              <tr>
                <th scope="col">Type</th><th scope="col">Record</th><th scope="col">Time</th>
                <th scope="col">Event ID</th><th scope="col"><span className="visually-hidden">Details</span></th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((e) => (
                <tr key={e.id} data-event={e.id} aria-selected={openId === e.id}
                  onClick={() => updateEventParams(params, { event: e.id })}>
                  <td><span className="mono small">{e.type}</span></td>
                  <td data-testid="record">{recordText(e.record)}</td>
                  <td className="small nowrap" title={formatDate(e.created_at)}>{timeAgo(e.created_at)}</td>
                  <td className="mono small event-id">{e.id}</td>
                  <td className="actions">
                    <button type="button" className="button button-small" aria-label={`Details of event ${e.id}`}
                      onClick={(ev) => { ev.stopPropagation(); updateEventParams(params, { event: e.id }); }}>
                      Details
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <CursorPagination what="events" after={after} next={data?.next ?? null}
        onAfter={(a) => updateEventParams(params, { after: a })} />
      {openId && <EventPanel id={openId} onClose={() => updateEventParams(params, { event: null })} />}
    </>
  );
}
