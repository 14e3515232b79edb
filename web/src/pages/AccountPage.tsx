// Settings > Account: who is signed in, whether WordPress made the account, and which WordPress user may sign in as
// it with "Open Webhooks & API". Only the owner, here, can allow one: the host token alone opens no password account.
import { useEffect, useState } from 'react';
import { ApiError, del, get, put } from '../api';
import { Badge } from '../components/Badge';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { useToast } from '../components/Toasts';
import { useView } from '../components/view';
import { formatDate } from '../format';
import type { Account, WordPressUser } from '../types';

const who = (u: WordPressUser) => `WordPress user #${u.wp_user_id} on ${u.site_url}`;

export function AccountPage() {
  const toast = useToast();
  const [account, setAccount] = useState<Account | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirmStop, setConfirmStop] = useState(false);
  const heading = useView('Account');
  useEffect(() => {
    get<Account>('/account').then(setAccount, (err: ApiError) => setError(err.message));
  }, []);

  const allow = async (user: WordPressUser) => {
    setBusy(true);
    setError(null);
    try {
      setAccount(await put<Account>('/account/wordpress-link', user));
      toast(`${who(user)} can now sign you in`);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  const stop = async () => {
    setAccount(await del<Account>('/account/wordpress-link'));
    toast('WordPress sign-in stopped');
  };

  const link = account?.wordpress_link ?? null;
  const request = account?.wordpress_link_request ?? null;
  const fromWordPress = account?.created_via === 'wordpress';
  return (
    <>
      <p className="breadcrumb">Settings <span aria-hidden="true">/</span> Account</p>
      <h1 tabIndex={-1} ref={heading}>Account</h1>
      <p className="lede muted">Your console account, and signing in from WordPress.</p>
      {error && <p className="form-error" role="alert">{error}</p>}
      {!account ? <p className="muted" aria-busy="true">{error ? '' : 'Loading…'}</p> : (
        <>
          <section className="card" aria-labelledby="account-heading">
            <h2 id="account-heading">{account.email}</h2>
            <p>
              {fromWordPress
                ? <Badge tone="blue">From WordPress</Badge>
                : <Badge tone="grey">Password account</Badge>}{' '}
              <span className="muted">
                {fromWordPress
                  ? <>Made by “Open Webhooks &amp; API” in WordPress; it has no password unless one was set with{' '}
                    <code>waypost admin password</code>.</>
                  : <>Made with <code>waypost admin create</code> or the setup link; you sign in with your e-mail
                    and password.</>}
              </span>
            </p>
          </section>
          <section className="card" aria-labelledby="wordpress-heading">
            <h2 id="wordpress-heading">Sign-in from WordPress</h2>
            {link ? (
              <>
                <p><b>{who(link)}</b> can sign in as you with “Open Webhooks &amp; API”.</p>
                <p className="muted small">
                  WordPress vouches for that user with the site’s host token: whoever holds the token can sign in as
                  you the same way.
                </p>
                <div className="form-actions">
                  <button type="button" className="button button-danger-ghost" onClick={() => setConfirmStop(true)}>
                    Stop WordPress sign-in
                  </button>
                </div>
              </>
            ) : <p className="muted">No WordPress user can sign in as you.</p>}
            {request && (request.site_url !== link?.site_url || request.wp_user_id !== link?.wp_user_id) && (
              <div className="callout callout-amber" role="status">
                <b>{who(request)}{request.name ? ` (${request.name})` : ''}</b> asked to sign in as you on{' '}
                {formatDate(request.requested_at)} and was refused. Allow it only if that WordPress user is you:
                anyone who holds the site’s host token could then sign in as you too.
                <div className="form-actions">
                  {!link && (
                    <button type="button" className="button" disabled={busy} onClick={() => setConfirmStop(true)}>
                      Dismiss
                    </button>
                  )}
                  <button type="button" className="button button-primary" disabled={busy}
                    onClick={() => allow({ site_url: request.site_url, wp_user_id: request.wp_user_id })}>
                    {busy ? 'Allowing…' : `Allow WordPress user #${request.wp_user_id}`}
                  </button>
                </div>
              </div>
            )}
          </section>
        </>
      )}
      {confirmStop && (
        <ConfirmDialog title={link ? 'Stop WordPress sign-in?' : 'Dismiss the request?'}
          confirmLabel={link ? 'Stop WordPress sign-in' : 'Dismiss'} danger={Boolean(link)}
          onConfirm={stop} onClose={() => setConfirmStop(false)}>
          {link
            ? <p>“Open Webhooks &amp; API” will no longer sign {who(link)} in as you.
              {fromWordPress && <> This account has no password unless one was set: without one you cannot sign
                in again until someone runs <code>waypost admin password</code> for it.</>}</p>
            : <p>The request is forgotten; WordPress stays unable to sign in as you.</p>}
        </ConfirmDialog>
      )}
    </>
  );
}
