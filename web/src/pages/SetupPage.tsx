// The first admin, from the one-time link `npm start` prints. The page asks the server first, so a link opened
// after an admin exists (or a spent or expired one) says so before anyone fills the form.
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, get, post, query } from '../api';
import { Field } from '../components/Field';
import { checkSetup, type FieldErrors } from '../components/formChecks';
import type { SessionInfo } from '../types';
import { AuthLayout } from './AuthLayout';

type Status = 'checking' | 'ready' | 'done' | 'invalid' | 'no-token';

interface Props {
  token: string;
  next: string | null;
  onDone: (s: SessionInfo) => void;
}

export function SetupPage({ token, next, onDone }: Props) {
  const [status, setStatus] = useState<Status>('checking');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    get<{ setup_required: boolean; token_valid?: boolean }>(`/setup${query({ token })}`).then(
      (s) => setStatus(!s.setup_required ? 'done' : !token ? 'no-token' : s.token_valid ? 'ready' : 'invalid'),
      () => setStatus('ready'), // the server has the last word when the form is sent
    );
  }, [token]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    // Every problem at once (e-mail, password length, the repeat), not one per attempt.
    const found = checkSetup(email, password, confirm);
    setFieldErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setError(null);
    try {
      onDone(await post<SessionInfo>('/setup', { token, email, password }));
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'error', String(err), null));
      if (err instanceof ApiError && err.code === 'setup_done') setStatus('done');
      setBusy(false);
    }
  };

  const signIn = <a className="button button-primary button-block" href={`#/login${query({ next })}`}>Sign in</a>;
  if (status === 'checking') {
    return (
      <AuthLayout title="Create the first admin" subtitle="Checking the setup link…">
        <p aria-busy="true" />
      </AuthLayout>
    );
  }
  if (status === 'done') {
    return (
      <AuthLayout title="Setup is done" subtitle="Waypost already has an admin. Sign in instead.">
        <p className="muted small">
          Forgot the password? On the server, run: <code>npx waypost admin password --email you@example.com</code>
        </p>
        {signIn}
      </AuthLayout>
    );
  }
  if (status === 'invalid' || status === 'no-token') {
    const why = status === 'invalid'
      ? 'This setup link is invalid or has expired.'
      : 'This page needs the one-time setup link.';
    return (
      <AuthLayout title="Create the first admin" subtitle={why}>
        <p className="form-error" role="alert">
          {why} Restart Waypost (<code>npm start</code>) to print a new link, or create the admin on the server
          with{' '}
          <code>npx waypost admin create --email you@example.com</code>
        </p>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title="Create the first admin" subtitle={'This one-time link sets up the account that manages '
      + 'Waypost. Failure alerts go to this address unless you choose another.'}>
      <form onSubmit={submit} noValidate>
        {error && !error.field && <p className="form-error" role="alert">{error.message}</p>}
        <Field label="E-mail" error={fieldErrors.email ?? (error?.field === 'email' ? error.message : null)}>
          <input type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)}
            autoFocus required />
        </Field>
        <Field label="Password" hint="At least 10 characters."
          error={fieldErrors.password ?? (error?.field === 'password' ? error.message : null)}>
          <input type="password" autoComplete="new-password" value={password}
            onChange={(e) => setPassword(e.target.value)} required />
        </Field>
        <Field label="Repeat password" error={fieldErrors.confirm ?? null}>
          <input type="password" autoComplete="new-password" value={confirm}
            onChange={(e) => setConfirm(e.target.value)} required />
        </Field>
        <button type="submit" className="button button-primary button-block" disabled={busy}>
          {busy ? 'Creating…' : 'Create admin and sign in'}
        </button>
      </form>
    </AuthLayout>
  );
}
