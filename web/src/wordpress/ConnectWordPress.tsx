// Settings > Webhooks & API > Connect WordPress: a site owner installs and connects the Waypost Bridge plugin in one
// page: download the zip, upload it, paste the URL and a host token made here (shown once), and watch the status
// turn green when the site's first call arrives.
import { useEffect, useState } from 'react';
import { ApiError, get, post } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyButton } from '../components/CopyButton';
import { useView } from '../components/view';
import { usePolling } from '../usePolling';
import { SiteStatus } from './SiteStatus';
import type { NewHostToken, WordPressStatus } from './types';

/** Often enough that the page turns green while the owner is still looking at WordPress' Test connection. */
const STATUS_INTERVAL_MS = 3000;

const LABEL = { margin: '14px 0 6px' };

const kilobytes = (bytes: number) => `${Math.max(1, Math.round(bytes / 1024))} KB`;

export function ConnectWordPress() {
  const heading = useView('Connect WordPress');
  const { data: status, error } = usePolling(() => get<WordPressStatus>('/wordpress/status'), [],
    STATUS_INTERVAL_MS);
  const [token, setToken] = useState<string | null>(null);
  const [tokenError, setTokenError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);

  const makeToken = async () => {
    const made = await post<NewHostToken>('/wordpress/host-token');
    setToken(made.token);
  };
  const ask = async () => {
    setTokenError(null);
    // A token exists (the site may be using it): replacing it needs a yes, since the old one stops at once.
    if (status?.host_token_source === 'stored' || token) {
      setConfirming(true);
      return;
    }
    setBusy(true);
    try {
      await makeToken();
    } catch (err) {
      setTokenError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  // On a phone the tab row scrolls sideways and this, its last tab, would start cut off: bring it into view.
  useEffect(() => {
    document.querySelector('.tabs [aria-current="page"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, []);

  const fromEnvironment = status?.host_token_source === 'environment';
  return (
    <>
      <div className="section-header">
        <div>
          <h2 tabIndex={-1} ref={heading}>Connect WordPress</h2>
          <p className="muted">
            The Waypost Bridge plugin sends WP Travel Engine’s trips, bookings, customers, payments, enquiries and
            reviews to Waypost as they change. Four steps, about a minute.
          </p>
        </div>
      </div>

      <section className="card" aria-labelledby="wp-download-heading">
        <h3 id="wp-download-heading">1. Download the plugin</h3>
        {!status ? <p className="muted" aria-busy="true">Loading…</p> : status.plugin ? (
          <p>
            <a className="button button-primary" href="/admin/api/wordpress/plugin.zip" download={status.plugin.file}>
              Download {status.plugin.file}
            </a>{' '}
            <span className="muted small">{kilobytes(status.plugin.bytes)}</span>
          </p>
        ) : (
          <div className="callout callout-amber" role="status">
            The plugin has not been built on this server. Run <code>npm run build</code> in the Waypost folder (it
            writes <code>dist/waypost-bridge.zip</code>), then reload this page.
          </div>
        )}
      </section>

      <section className="card" aria-labelledby="wp-upload-heading">
        <h3 id="wp-upload-heading">2. Upload it to WordPress</h3>
        <p>
          In WordPress, go to <b>Plugins › Add New › Upload Plugin</b>, choose the zip, click <b>Install Now</b>,
          then <b>Activate</b>. It needs WordPress 5.0 and PHP 7.4 or later, and WP Travel Engine.
        </p>
      </section>

      <section className="card" aria-labelledby="wp-connect-heading">
        <h3 id="wp-connect-heading">3. Paste the URL and a host token</h3>
        <p>In WordPress, open <b>Settings › Webhooks &amp; API</b> and fill in:</p>
        <p className="field-label" id="wp-url-label" style={LABEL}>Waypost URL</p>
        <div className="secret-row">
          <code className="secret-value" aria-labelledby="wp-url-label" data-testid="waypost-url">
            {status?.waypost_url ?? '…'}
          </code>
          {status && <CopyButton text={status.waypost_url} what="Waypost URL" />}
        </div>
        <p className="field-label" id="wp-token-label" style={LABEL}>Host token</p>
        {fromEnvironment ? (
          <p className="callout callout-blue" role="note">
            This server takes its host token from <code>WAYPOST_HOST_TOKEN</code>, so the console cannot make one:
            paste that value.
          </p>
        ) : token ? (
          <>
            <div className="secret-row">
              <code className="secret-value" aria-labelledby="wp-token-label" data-testid="host-token">{token}</code>
              <CopyButton text={token} what="host token" />
            </div>
            <p className="small muted">
              Shown once: copy it now. Waypost keeps only its hash, and the previous token no longer works.
            </p>
          </>
        ) : (
          <>
            <button type="button" className="button" disabled={busy || !status} onClick={ask}>
              {busy ? 'Making…' : 'Make a new host token'}
            </button>
            <p className="muted small">
              {status?.host_token_source === 'stored'
                ? 'Replaces the current token: a site using it stops sending until it gets the new one.'
                : 'Shown once, for you to paste into WordPress.'}
            </p>
          </>
        )}
        {tokenError && <p className="form-error" role="alert">{tokenError}</p>}
        <p className="small muted">Then click <b>Save</b> and <b>Test connection</b> there.</p>
      </section>

      <SiteStatus status={status} error={error} />

      {confirming && (
        <ConfirmDialog title="Replace the host token?" confirmLabel="Make a new host token" danger
          onConfirm={makeToken} onClose={() => setConfirming(false)}>
          <p>
            The current host token stops working at once: a WordPress site using it cannot send to Waypost until you
            paste the new one into its settings.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
