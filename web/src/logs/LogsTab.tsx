// Logs: webhook deliveries (filterable, paginated, live), the e-mail alerts sent, and per-key API usage.
import { AlertsList } from './AlertsList';
import { DeliveriesLog } from './DeliveriesLog';
import { UsageTable } from './UsageTable';
import { updateLogParams } from './params';
import { useView } from '../components/view';

const VIEWS = [
  { id: 'deliveries', label: 'Webhook deliveries' },
  { id: 'alerts', label: 'E-mail alerts' },
  { id: 'usage', label: 'API usage' },
] as const;

export function LogsTab({ params }: { params: URLSearchParams }) {
  const asked = params.get('view') ?? params.get('tab'); // `tab` as in the API Keys tab's usage links of old
  const view = VIEWS.find((v) => v.id === asked) ?? VIEWS[0];
  const heading = useView(`${view.label} · Logs`);
  return (
    <>
      <div className="section-header">
        <div>
          <h2 tabIndex={-1} ref={heading}>Logs</h2>
          <p className="muted">
            Every webhook delivery with its attempts, the failure e-mails sent, and each key&rsquo;s API use.
          </p>
        </div>
      </div>
      <div className="segmented" role="group" aria-label="Log type">
        {VIEWS.map((v) => (
          <button key={v.id} type="button" aria-pressed={view.id === v.id}
            onClick={() => updateLogParams(new URLSearchParams(), { view: v.id === 'deliveries' ? null : v.id })}>
            {v.label}
          </button>
        ))}
      </div>
      {view.id === 'deliveries' && <DeliveriesLog params={params} />}
      {view.id === 'alerts' && <AlertsList />}
      {view.id === 'usage' && <UsageTable keyId={params.get('key')} />}
    </>
  );
}
