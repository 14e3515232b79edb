// The failure e-mails Waypost sent (or stored, without SMTP), newest first.
import { useState } from 'react';
import { get, query } from '../api';
import { Badge } from '../components/Badge';
import { EmptyState } from '../components/EmptyState';
import { Pagination } from '../components/Pagination';
import { formatDate } from '../format';
import type { Alert, Page } from '../types';
import { usePolling } from '../usePolling';

const PER_PAGE = 25;
const STATUS: Record<Alert['status'], string> = {
  sent: 'Sent', stored: 'Stored (no SMTP)', failed: 'Sending failed', suppressed: 'Suppressed by a filter',
};

export function AlertsList() {
  const [page, setPage] = useState(1);
  const { data, error } = usePolling(() => get<Page<Alert>>(`/alerts${query({ page, perpage: PER_PAGE })}`), [page],
    5000);
  return (
    <>
      <p className="muted">
        Waypost e-mails a warning after the 3rd and 4th failed attempt of a delivery, and a critical alert when a
        webhook is disabled after the 5th. These e-mails cannot be switched off.
      </p>
      {error && <p className="form-error" role="alert">{error}</p>}
      {!data ? <p className="muted" aria-busy="true">Loading alerts…</p> : data.items.length === 0 ? (
        <EmptyState title="No alerts sent">Nothing has failed often enough to alert anyone.</EmptyState>
      ) : (
        <>
          <ul className="alert-list">
            {data.items.map((a) => (
              <li key={a.id} className="alert-item">
                <details>
                  <summary>
                    <Badge tone={a.level === 'critical' ? 'red' : 'amber'}>
                      {a.level === 'critical' ? 'Critical' : 'Warning'}
                    </Badge>
                    <span className="alert-subject">{a.subject}</span>
                    <span className="muted small nowrap">{formatDate(a.created_at)}</span>
                  </summary>
                  <p className="small muted">
                    To {a.recipient ?? 'nobody (no address configured)'} · {STATUS[a.status] ?? a.status}
                    {a.error ? ` · ${a.error}` : ''}
                    {a.webhook_name ? ` · webhook ${a.webhook_name}` : ''}
                  </p>
                  <pre className="code-block">{a.body}</pre>
                </details>
              </li>
            ))}
          </ul>
          <Pagination page={page} perpage={PER_PAGE} total={data.total} onPage={setPage} />
        </>
      )}
    </>
  );
}
