import { useState, type FormEvent } from 'react';
import { ApiError, post } from '../api';
import { Field } from '../components/Field';
import type { SessionInfo } from '../types';
import { AuthLayout } from './AuthLayout';

export function SetupPage({ token, onDone }: { token: string; onDone: (s: SessionInfo) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (password !== confirm) {
      setError(new ApiError(400, 'mismatch', 'The two passwords do not match.', 'confirm'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      onDone(await post<SessionInfo>('/setup', { token, email, password }));
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'error', String(err), null));
      setBusy(false);
    }
  };

  return (
    <AuthLayout title="Create the first admin" subtitle="This one-time link sets up the account that manages Waypost. Failure alerts go to this address unless you choose another.">
      <form onSubmit={submit} noValidate>
        {!token && <p className="form-error" role="alert">This page needs the setup link printed by <code>npm start</code>.</p>}
        {error && !error.field && <p className="form-error" role="alert">{error.message}</p>}
        <Field label="E-mail" error={error?.field === 'email' ? error.message : null}>
          <input type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} autoFocus required />
        </Field>
        <Field label="Password" hint="At least 10 characters." error={error?.field === 'password' ? error.message : null}>
          <input type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
        </Field>
        <Field label="Repeat password" error={error?.field === 'confirm' ? error.message : null}>
          <input type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} required />
        </Field>
        <button type="submit" className="button button-primary button-block" disabled={busy || !token}>{busy ? 'Creating…' : 'Create admin and sign in'}</button>
      </form>
    </AuthLayout>
  );
}
