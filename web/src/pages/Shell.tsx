// The signed-in frame: top bar with the account and sign-out, a "Settings" side navigation, the page.
import { useEffect, useRef, type ReactNode } from 'react';
import { del } from '../api';
import { labelTableCells } from '../components/tableCards';

export function Shell({ email, section, onSignedOut, children }: {
  email: string; section: string; onSignedOut: () => void; children: ReactNode;
}) {
  const signOut = async () => {
    try {
      await del('/session');
    } finally {
      onSignedOut();
    }
  };
  const main = useRef<HTMLElement>(null);
  useEffect(() => labelTableCells(main.current!), []);
  const shown = section === 'settings' || section === 'account' ? section : 'webhooks';
  const current = (name: string) => (shown === name ? 'page' : undefined);
  return (
    <div className="app">
      <a href="#main" className="skip-link"
        onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to content</a>
      <header className="topbar">
        <div className="brand"><span className="brand-mark" aria-hidden="true">W</span> Waypost</div>
        <div className="topbar-account">
          <span className="muted topbar-email" title={`Signed in as ${email}`}>{email}</span>
          <button type="button" className="button button-small" onClick={signOut}>Sign out</button>
        </div>
      </header>
      <div className="layout">
        <nav className="sidenav" aria-label="Settings">
          <p className="sidenav-heading">Settings</p>
          <a href="#/webhooks" aria-current={current('webhooks')}>Webhooks &amp; API</a>
          <a href="#/settings" aria-current={current('settings')}>Alerts &amp; retention</a>
          <a href="#/account" aria-current={current('account')}>Account</a>
        </nav>
        <main id="main" ref={main} tabIndex={-1} className="content">{children}</main>
      </div>
    </div>
  );
}
