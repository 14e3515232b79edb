// API keys: label, key prefix, permissions, rate limit, status, created, last used; add, edit, disable/enable,
// delete, and a link to each key's usage in Logs.
import { useState } from 'react';
import { ApiError, del, get, post } from '../api';
import { Badge } from '../components/Badge';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { EmptyState } from '../components/EmptyState';
import { LoadingRows } from '../components/LoadingRows';
import { useToast } from '../components/Toasts';
import { formatDate, timeAgo } from '../format';
import type { ApiKey } from '../types';
import { usePolling } from '../usePolling';
import { useView } from '../components/view';
import { CreateKeyDialog } from './CreateKeyDialog';
import { EditKeyDialog } from './EditKeyDialog';
import { PostmanLink } from './PostmanLink';
import { KeyUsageChart } from './KeyUsageChart';
import { windowText, type RateLimitInfo } from './KeyForm';
import { describePermissions } from './permissions';

// Lists show the key already shortened ("wpk_1a2b3c4d…"); shorten a full one the same way.
const prefixOf = (k: ApiKey) =>
  k.key_prefix ?? (k.key ? (k.key.endsWith('…') ? k.key : `${k.key.slice(0, 12)}…`) : '—');

export function KeysTab() {
  const toast = useToast();
  const { data, error, refresh } = usePolling(
    () => get<{ keys: ApiKey[]; rate_limit?: RateLimitInfo; api_url?: string }>('/keys'), [], 5000);
  const keys = data?.keys ?? null;
  const limits = data?.rate_limit ?? null;
  const [adding, setAdding] = useState(false);
  const heading = useView('API keys');
  const [editing, setEditing] = useState<ApiKey | null>(null);
  const [deleting, setDeleting] = useState<ApiKey | null>(null);

  const setActive = async (k: ApiKey, active: boolean) => {
    try {
      await post(`/keys/${k.id}/${active ? 'enable' : 'disable'}`);
      toast(active ? `${k.label} enabled` : `${k.label} disabled: requests with it now get 401`);
      await refresh();
    } catch (err) {
      toast(err instanceof ApiError ? err.message : String(err), 'error');
    }
  };

  return (
    <>
      <div className="section-header">
        <div>
          <h2 tabIndex={-1} ref={heading}>API keys</h2>
          <p className="muted">
            Applications send a key and its secret as <code>Access-Token</code> and <code>Access-Secret</code> headers
            to read data through the REST API.
          </p>
          <PostmanLink apiUrl={data?.api_url ?? null} />
        </div>
        <button type="button" className="button button-primary" onClick={() => setAdding(true)}>Add key</button>
      </div>
      {error && <p className="form-error" role="alert">{error}</p>}
      {!keys ? <LoadingRows label="Loading keys…" /> : keys.length === 0 ? (
        <EmptyState title="No API keys yet" action={
          <button type="button" className="button button-primary" onClick={() => setAdding(true)}>
            Add your first key
          </button>
        }>
          Create a key for each application that reads trips, bookings, customers or payments.
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-label="API keys">
            <thead>
              <tr>
                <th scope="col">Label</th><th scope="col">Key</th><th scope="col">Permissions</th>
                <th scope="col">Status</th><th scope="col">Created</th><th scope="col">Last used</th>
                <th scope="col"><span className="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id} data-key={k.label}>
                  <td className="strong">
                    {k.label}
                    <div className="muted small">
                      {k.rate_limit ?? limits?.default ?? 'Default'}
                      {` requests / ${limits ? windowText(limits.window_s) : 'window'}`}
                      {k.rate_limit === null ? ' (default)' : ''}
                    </div>
                  </td>
                  <td><code className="mono small">{prefixOf(k)}</code></td>
                  <td className="small">{describePermissions(k.permissions)}</td>
                  <td>{k.active ? <Badge tone="green">Active</Badge> : <Badge tone="grey">Disabled</Badge>}</td>
                  <td className="small nowrap">{formatDate(k.created_at)}</td>
                  <td className="small nowrap">
                    {timeAgo(k.last_used_at)}
                    <div>
                      <a className="plain-link small" href={`#/logs?view=usage&key=${encodeURIComponent(k.id)}`}
                        aria-label={`Usage of ${k.label}`}>Usage</a>
                    </div>
                  </td>
                  <td className="actions">
                    <button type="button" className="button button-small" onClick={() => setEditing(k)}
                      aria-label={`Edit ${k.label}`}>Edit</button>
                    <button type="button" className="button button-small" onClick={() => setActive(k, !k.active)}
                      aria-label={`${k.active ? 'Disable' : 'Enable'} ${k.label}`}>
                      {k.active ? 'Disable' : 'Enable'}
                    </button>
                    <button type="button" className="button button-small button-danger-ghost"
                      onClick={() => setDeleting(k)} aria-label={`Delete ${k.label}`}>Delete</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {keys && <KeyUsageChart keys={keys} />}
      {adding && (
        <CreateKeyDialog limits={limits} apiUrl={data?.api_url ?? null} onClose={() => setAdding(false)}
          onCreated={() => void refresh()} />
      )}
      {editing && (
        <EditKeyDialog apiKey={editing} limits={limits} onClose={() => setEditing(null)}
          onSaved={() => void refresh()} />
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete “${deleting.label}”?`}
          confirmLabel="Delete key"
          danger
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await del(`/keys/${deleting.id}`);
            toast('API key deleted');
            await refresh();
          }}
        >
          <p>
            Applications using <code>{prefixOf(deleting)}</code> will get 401 from now on. This cannot be undone; to
            pause a key instead, disable it.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
