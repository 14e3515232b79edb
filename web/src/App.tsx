// Session bootstrap and top-level routing: sign-in and setup when signed out, the settings pages when signed in.
// A page asked for while signed out (an alert e-mail's link to a delivery) rides along as ?next= through sign-in.
import { useCallback, useEffect, useState } from 'react';
import { get, onUnauthorized, setCsrfToken } from './api';
import { navigate, requestedPage, returnTo, useRoute } from './router';
import type { SessionInfo } from './types';
import { LoginPage } from './pages/LoginPage';
import { SetupPage } from './pages/SetupPage';
import { Shell } from './pages/Shell';
import { WebhooksApiPage } from './pages/WebhooksApiPage';
import { SettingsPage } from './pages/SettingsPage';
import { AccountPage } from './pages/AccountPage';

type State = { status: 'loading' } | { status: 'signed-out' } | { status: 'signed-in'; email: string };

export function App() {
  const route = useRoute();
  const [state, setState] = useState<State>({ status: 'loading' });

  const signedIn = useCallback((session: SessionInfo) => {
    setCsrfToken(session.csrf_token);
    setState({ status: 'signed-in', email: session.email ?? 'admin' });
  }, []);

  useEffect(() => {
    get<SessionInfo>('/session').then(signedIn, () => setState({ status: 'signed-out' }));
    return onUnauthorized(() => {
      setCsrfToken(null);
      setState({ status: 'signed-out' });
    });
  }, [signedIn]);

  const section = route.path[0] ?? '';
  useEffect(() => {
    if (state.status === 'signed-in' && ['', 'login', 'setup'].includes(section)) {
      navigate(returnTo(route.params.get('next')) ?? '/webhooks', { replace: true });
    }
    if (state.status === 'signed-out' && section !== 'setup' && section !== 'login') {
      const next = requestedPage(route);
      navigate(next && next !== '/' ? `/login?next=${encodeURIComponent(next)}` : '/login', { replace: true });
    }
  }, [state.status, section, route]);

  if (state.status === 'loading') return <div className="boot" aria-busy="true">Loading…</div>;
  if (state.status === 'signed-out') {
    return section === 'setup'
      ? <SetupPage token={route.params.get('token') ?? ''} next={route.params.get('next')} onDone={signedIn} />
      : <LoginPage onSignedIn={signedIn} />;
  }
  const signedOut = () => {
    // A deliberate sign-out starts the next person on a clean page, not on the one left open.
    navigate('/login', { replace: true });
    setCsrfToken(null);
    setState({ status: 'signed-out' });
  };
  return (
    <Shell email={state.email} section={section} onSignedOut={signedOut}>
      {section === 'settings' ? <SettingsPage />
        : section === 'account' ? <AccountPage /> : <WebhooksApiPage route={route} />}
    </Shell>
  );
}
