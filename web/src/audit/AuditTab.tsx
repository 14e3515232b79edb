// Audit log: who created, changed, disabled or deleted a webhook or key, revealed or rotated a secret, changed
// settings, recovered, erased or exported, when and from where; newest first, filtered by action, door (console,
// WordPress sign-in, CLI, host token), target and time, paged by cursor. Read only: nobody changes an entry.
import { useEffect, useState } from 'react';
import { get, query } from '../api';
import { EmptyState } from '../components/EmptyState';
import { LiveIndicator } from '../components/LiveIndicator';
import { TimeRangeFields } from '../components/TimeRangeFields';
import { LoadingRows } from '../components/LoadingRows';
import { CursorPagination } from '../components/Pagination';
import { useView } from '../components/view';
import { formatDate, timeAgo } from '../format';
import type { AuditAction, AuditEntry, AuditPage } from '../types';
import { LIVE_INTERVAL_MS, usePolling } from '../usePolling';
import { updateAuditParams } from './params';

const PER_PAGE = 25;

// Records keyed by the server's own types: TypeScript checks that every action and door has its label (types only;
// the console's build hashes web/ alone, so it takes no values from src/).
export const ACTOR_LABELS: Record<AuditEntry['actor_type'], string> = {
  admin: 'Console or admin API', wordpress: 'WordPress sign-in', cli: 'Command line', host: 'Host token',
};
const ACTION_LABELS: Record<AuditAction, string> = {
  'webhook.created': 'Webhook created', 'webhook.updated': 'Webhook changed', 'webhook.enabled': 'Webhook enabled',
  'webhook.disabled': 'Webhook disabled', 'webhook.deleted': 'Webhook deleted',
  'webhook.secret_revealed': 'Webhook secret revealed', 'webhook.secret_rotated': 'Webhook secret rotated',
  'webhook.recovered': 'Deliveries recovered', 'key.created': 'API key created', 'key.updated': 'API key changed',
  'key.enabled': 'API key enabled', 'key.disabled': 'API key disabled', 'key.deleted': 'API key deleted',
  'settings.changed': 'Settings changed', 'person.erased': 'Person erased', 'person.exported': 'Person exported',
  'host_token.rotated': 'Host token replaced', 'admin_token.rotated': 'Admin token replaced',
  'admin.created': 'Admin account created', 'admin.password_changed': 'Admin password changed',
  'admin.wordpress_linked': 'WordPress sign-in allowed', 'admin.wordpress_unlinked': 'WordPress sign-in stopped',
  'delivery.redelivered': 'Delivery sent again', 'webhook.tested': 'Test event sent',
  'event.sent': 'Event sent to a webhook',
};
const ACTIONS = Object.keys(ACTION_LABELS) as AuditAction[];
const ACTORS = Object.keys(ACTOR_LABELS) as Array<AuditEntry['actor_type']>;
export const actionLabel = (action: string) => ACTION_LABELS[action as AuditAction] ?? action;

/** `{fields: ['max_per_second', 'url']}` → "fields: max per second, url"; `{grace_s: 60}` → "grace: 60 s". */
const words = (text: string) => text.replace(/_/g, ' ');
const detail = ([k, v]: [string, unknown]) => (k.endsWith('_s') ? `${words(k.slice(0, -2))}: ${String(v)} s`
  : `${words(k)}: ${Array.isArray(v) ? v.map(words).join(', ') : String(v)}`);
const detailsText = (details: AuditEntry['details']) =>
  (details === null ? '—' : Object.entries(details).map(detail).join('; '));

/** "adm_… ops@example.com": the e-mail shown, the account id in its title. */
function Who({ entry }: { entry: AuditEntry }) {
  const session = /^(adm_\S+) (.+)$/.exec(entry.actor);
  return (
    <>
      <span title={session ? session[1] : undefined}>{session ? session[2] : entry.actor}</span>
      <br /><span className="muted small">{ACTOR_LABELS[entry.actor_type] ?? entry.actor_type}</span>
    </>
  );
}

export function AuditTab({ params }: { params: URLSearchParams }) {
  const heading = useView('Audit log');
  const filters = {
    action: params.get('action') ?? '', actor_type: params.get('actor_type') ?? '',
    target_id: params.get('target') ?? '', since: params.get('since') ?? '', until: params.get('until') ?? '',
  };
  const after = params.get('after') ?? '';
  const [typed, setTyped] = useState(filters.target_id);
  useEffect(() => setTyped(filters.target_id), [filters.target_id]);

  const key = JSON.stringify({ ...filters, after });
  const { data, error } = usePolling(
    () => get<AuditPage>(`/audit${query({ ...filters, after, perpage: PER_PAGE })}`), [key], LIVE_INTERVAL_MS);
  const set = (changes: Record<string, string | null>) => updateAuditParams(params, { after: null, ...changes });
  const hasFilters = Object.values(filters).some(Boolean);

  return (
    <>
      <div className="section-header">
        <div>
          <h2 tabIndex={-1} ref={heading}>Audit log</h2>
          <p className="muted">
            Who changed webhooks, API keys, settings or accounts, revealed or replaced a secret or token, recovered or
            sent deliveries again, or erased or exported a person&rsquo;s data: from the console, a WordPress sign-in,
            the command line or the host token. Secrets are never recorded.
          </p>
        </div>
      </div>
      <form className="filters" aria-label="Filter the audit log"
        onSubmit={(e) => { e.preventDefault(); set({ target: typed.trim() }); }}>
        <label>
          <span className="field-label">Action</span>
          <select aria-label="Action" value={filters.action} onChange={(e) => set({ action: e.target.value })}>
            <option value="">All actions</option>
            {ACTIONS.map((a) => <option key={a} value={a}>{actionLabel(a)}</option>)}
          </select>
        </label>
        <label>
          <span className="field-label">Who</span>
          <select aria-label="Who" value={filters.actor_type} onChange={(e) => set({ actor_type: e.target.value })}>
            <option value="">Anyone</option>
            {ACTORS.map((t) => <option key={t} value={t}>{ACTOR_LABELS[t]}</option>)}
          </select>
        </label>
        <label className="filter-search">
          <span className="field-label">Webhook or key</span>
          <input type="search" aria-label="Webhook or key id" value={typed} placeholder="wh_… or key_…"
            onChange={(e) => setTyped(e.target.value)}
            onBlur={() => { if (typed.trim() !== filters.target_id) set({ target: typed.trim() }); }} />
        </label>
        <TimeRangeFields since={filters.since} until={filters.until} onChange={set} />
        {hasFilters && (
          <button type="button" className="link-button" onClick={() => updateAuditParams(new URLSearchParams(), {})}>
            Clear filters
          </button>
        )}
        <LiveIndicator />
      </form>
      {error && <p className="form-error" role="alert">{error}</p>}
      {error && !data ? null : !data ? <LoadingRows label="Loading the audit log…" rows={5} />
        : data.items.length === 0 ? (
        <EmptyState title={hasFilters ? 'No entries match these filters' : after ? 'No older entries'
          : 'No admin actions yet'}>
          {hasFilters ? 'Try another action, person or time.'
            : 'Creating, changing or deleting a webhook or an API key, revealing a secret or changing settings '
              + 'appears here.'}
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-label="Audit log">
            <thead>
              <tr>
                <th scope="col">Time</th><th scope="col">Who</th><th scope="col">Action</th>
                <th scope="col">Target</th><th scope="col">Details</th><th scope="col">IP address</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((e) => (
                <tr key={e.id} data-audit={e.id}>
                  <td className="small nowrap" title={formatDate(e.at)}>{timeAgo(e.at)}</td>
                  <td><Who entry={e} /></td>
                  <td>{actionLabel(e.action)}</td>
                  <td className="mono small event-id">{e.target_id ?? e.target_type ?? '—'}</td>
                  <td className="small">{detailsText(e.details)}</td>
                  <td className="mono small" title={e.ip === null ? 'On the server (command line)' : undefined}>
                    {e.ip ?? '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <CursorPagination what="entries" after={after} next={data?.next ?? null}
        onAfter={(a) => updateAuditParams(params, { after: a })} />
    </>
  );
}
