// Settings > Webhooks & API: six tabs, each its own hash route.
import type { Route } from '../router';
import { WebhooksTab } from '../webhooks/WebhooksTab';
import { WebhookEditor } from '../webhooks/WebhookEditor';
import { KeysTab } from '../keys/KeysTab';
import { LogsTab } from '../logs/LogsTab';
import { EventsTab } from '../events/EventsTab';
import { AuditTab } from '../audit/AuditTab';
import { ConnectWordPress } from '../wordpress/ConnectWordPress';
import { PrivacyTab } from '../privacy/PrivacyTab';

const TABS = [
  { id: 'webhooks', label: 'Webhooks' },
  { id: 'keys', label: 'API Keys' },
  { id: 'logs', label: 'Logs' },
  { id: 'events', label: 'Events' },
  { id: 'privacy', label: 'Privacy' },
  { id: 'audit', label: 'Audit log' },
  { id: 'wordpress', label: 'Connect WordPress' },
] as const;

export function WebhooksApiPage({ route }: { route: Route }) {
  const tab = TABS.some((t) => t.id === route.path[0]) ? route.path[0] : 'webhooks';
  const sub = route.path[1];
  return (
    <>
      <p className="breadcrumb">Settings <span aria-hidden="true">/</span> Webhooks &amp; API</p>
      <h1>Webhooks &amp; API</h1>
      <p className="lede muted">
        Push booking events to your systems with signed webhooks, and let applications read trips, bookings,
        customers and payments with API keys.
      </p>
      <nav className="tabs" aria-label="Webhooks and API">
        {TABS.map((t) => (
          <a key={t.id} href={`#/${t.id}`} className="tab" aria-current={tab === t.id ? 'page' : undefined}>
            {t.label}
          </a>
        ))}
      </nav>
      <section className="tab-panel">
        {tab === 'webhooks' && (sub ? <WebhookEditor id={sub === 'new' ? null : sub} /> : <WebhooksTab />)}
        {tab === 'keys' && <KeysTab />}
        {tab === 'logs' && <LogsTab params={route.params} />}
        {tab === 'events' && <EventsTab params={route.params} />}
        {tab === 'privacy' && <PrivacyTab />}
        {tab === 'audit' && <AuditTab params={route.params} />}
        {tab === 'wordpress' && <ConnectWordPress />}
      </section>
    </>
  );
}
