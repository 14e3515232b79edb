// Step 4 of Connect WordPress: the site's status, polled, green once its first authenticated call has arrived. Shows
// what the bridge reports about itself; what it does not send says so instead of a blank.
import { Badge } from '../components/Badge';
import { formatDate, timeAgo } from '../format';
import type { WordPressStatus } from './types';

const reported = (value: string | number | null) => (value === null ? <span className="muted">not reported</span>
  : String(value));

export function SiteStatus({ status, error }: { status: WordPressStatus | null; error: string | null }) {
  return (
    <section className="card" aria-labelledby="wp-status-heading">
      <div className="card-header">
        <h3 id="wp-status-heading">4. Check the connection</h3>
        <div role="status" data-testid="wordpress-status">
          {!status ? <Badge tone="grey">Checking…</Badge>
            : status.connected ? <Badge tone="green">Connected</Badge>
              : <Badge tone="amber">Waiting for the site’s first call</Badge>}
        </div>
      </div>
      {error && <p className="form-error" role="alert">{error}</p>}
      {status && !status.connected && (
        <p className="muted">
          In WordPress, click <b>Test connection</b> on the plugin’s settings page: this turns green as soon as
          Waypost receives the call (checked every few seconds).
        </p>
      )}
      {status?.connected && (
        <dl className="facts" data-testid="wordpress-facts">
          <div><dt>Last contact</dt><dd title={formatDate(status.last_contact_at)}>
            {timeAgo(status.last_contact_at)}</dd></div>
          <div><dt>Site URL</dt><dd>{status.site_url
            ? <a href={status.site_url} target="_blank" rel="noreferrer">{status.site_url}</a>
            : reported(null)}</dd></div>
          <div><dt>Waypost Bridge</dt><dd data-testid="plugin-version">{reported(status.plugin_version)}
            {status.plugin && status.plugin_version && status.plugin_version !== status.plugin.version && (
              <span className="muted small"> (the download above is {status.plugin.version}: upload it to
                update)</span>
            )}</dd></div>
          <div><dt>WordPress</dt><dd>{reported(status.wordpress_version)}</dd></div>
          <div><dt>WP Travel Engine</dt><dd>{reported(status.wp_travel_engine_version)}</dd></div>
          <div><dt>Retry queue</dt><dd>{status.queue_length === null ? reported(null)
            : status.queue_length === 0 ? 'empty' : `${status.queue_length} waiting`}</dd></div>
        </dl>
      )}
    </section>
  );
}
