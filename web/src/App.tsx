// Session bootstrap and top-level routing: sign-in and setup when signed out, the settings pages when signed in.
import { useCallback, useEffect, useState } from 'react';
import { get, onUnauthorized, setCsrfToken } from './api';
import { navigate, useRoute } from './router';
import type { SessionInfo } from './types';
import { LoginPage } from './pages/LoginPage';
import { SetupPage } from './pages/SetupPage';
import { Shell } from './pages/Shell';
import { WebhooksApiPage } from './pages/WebhooksApiPage';
import { SettingsPage } from './pages/SettingsPage';

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
    if (state.status === 'signed-in' && ['', 'login', 'setup'].includes(section)) navigate('/webhooks');
    if (state.status === 'signed-out' && section !== 'setup' && section !== 'login') navigate('/login');
  }, [state.status, section]);

  if (state.status === 'loading') return <div className="boot" aria-busy="true">Loading…</div>;
  if (state.status === 'signed-out') {
    return section === 'setup'
      ? <SetupPage token={route.params.get('token') ?? ''} onDone={signedIn} />
      : <LoginPage onSignedIn={signedIn} />;
  }
  return (
    <Shell email={state.email} section={section} onSignedOut={() => { setCsrfToken(null); setState({ status: 'signed-out' }); }}>
      {section === 'settings' ? <SettingsPage /> : <WebhooksApiPage route={route} />}
    </Shell>
  );
}
