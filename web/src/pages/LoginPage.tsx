import { useState, type FormEvent } from 'react';
import { ApiError, post } from '../api';
import { Field } from '../components/Field';
import type { SessionInfo } from '../types';
import { AuthLayout } from './AuthLayout';

export function LoginPage({ onSignedIn }: { onSignedIn: (s: SessionInfo) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await post<SessionInfo>('/session', { email, password }));
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'error', String(err), null));
      setBusy(false);
    }
  };

  return (
    <AuthLayout title="Sign in" subtitle="Manage webhooks, API keys and delivery logs.">
      <form onSubmit={submit} noValidate>
        {error && !error.field && <p className="form-error" role="alert">{error.message}</p>}
        <Field label="E-mail" error={error?.field === 'email' ? error.message : null}>
          <input type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)}
            autoFocus required />
        </Field>
        <Field label="Password" error={error?.field === 'password' ? error.message : null}>
          <input type="password" autoComplete="current-password" value={password}
            onChange={(e) => setPassword(e.target.value)} required />
        </Field>
        <button type="submit" className="button button-primary button-block" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p className="auth-note muted">
        No account yet? Use the one-time setup link printed by <code>npm start</code>, or
        run <code>npx waypost admin create --email you@example.com</code>.
      </p>
    </AuthLayout>
  );
}
