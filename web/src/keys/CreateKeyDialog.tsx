// "Add key": label, permissions grouped by resource, optional rate limit. Then the key and secret, shown once.
import { useState, type FormEvent } from 'react';
import { ApiError, post } from '../api';
import { CopyButton } from '../components/CopyButton';
import { Dialog } from '../components/Dialog';
import { Field } from '../components/Field';
import type { CreatedApiKey } from '../types';
import { ACTIONS, ALL_PERMISSIONS, RESOURCES } from './permissions';

export function CreateKeyDialog({ onClose, onCreated }: { onClose: () => void; onCreated: () => void }) {
  const [label, setLabel] = useState('');
  const [permissions, setPermissions] = useState<string[]>([]);
  const [rateLimit, setRateLimit] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);

  const toggle = (p: string, on: boolean) => setPermissions((ps) => (on ? [...ps, p] : ps.filter((x) => x !== p)));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!label.trim()) return setError(new ApiError(400, 'invalid_label', 'Give the key a label, e.g. the application that uses it.', 'label'));
    if (permissions.length === 0) return setError(new ApiError(400, 'invalid_permissions', 'Choose at least one permission.', 'permissions'));
    if (rateLimit && !/^\d+$/.test(rateLimit.trim())) return setError(new ApiError(400, 'invalid_rate_limit', 'Enter a whole number of requests, or leave it empty for the default.', 'rate_limit'));
    setBusy(true);
    try {
      const body: Record<string, unknown> = { label: label.trim(), permissions };
      if (rateLimit.trim()) body.rate_limit = Number(rateLimit.trim());
      setCreated(await post<CreatedApiKey>('/keys', body));
      onCreated();
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'error', String(err), null));
    } finally {
      setBusy(false);
    }
  };

  if (created) {
    return (
      <Dialog title="Your new API key" onClose={onClose} footer={<button type="button" className="button button-primary" onClick={onClose}>I have saved the secret</button>}>
        <div className="callout callout-amber" role="alert">
          <strong>Copy the secret now.</strong> It is shown only this once; Waypost keeps only a hash of it. If you lose it, create a new key.
        </div>
        <div className="credential">
          <span className="field-label" id="new-key-label">Key (Access-Token)</span>
          <div className="secret-row">
            <code className="secret-value" data-testid="new-key" aria-labelledby="new-key-label">{created.key}</code>
            <CopyButton text={created.key} what="key" />
          </div>
        </div>
        <div className="credential">
          <span className="field-label" id="new-secret-label">Secret (Access-Secret)</span>
          <div className="secret-row">
            <code className="secret-value" data-testid="new-secret" aria-labelledby="new-secret-label">{created.secret}</code>
            <CopyButton text={created.secret} what="secret" />
          </div>
        </div>
        <p className="muted small">Send both as headers: <code>Access-Token: {created.key.slice(0, 12)}…</code> and <code>Access-Secret: …</code></p>
      </Dialog>
    );
  }

  const permError = error?.field === 'permissions' ? error.message : null;
  return (
    <Dialog title="Add API key" onClose={onClose} wide>
      <form onSubmit={submit} noValidate className="form">
        {error && !['label', 'permissions', 'rate_limit'].includes(error.field ?? '') && <p className="form-error" role="alert">{error.message}</p>}
        <Field label="Label" hint="Who or what uses this key, e.g. “Partner portal”." error={error?.field === 'label' ? error.message : null}>
          <input type="text" value={label} maxLength={200} onChange={(e) => setLabel(e.target.value)} autoFocus />
        </Field>
        <fieldset className={`field${permError ? ' field-invalid' : ''}`}>
          <legend className="field-label">Permissions</legend>
          <table className="perm-table">
            <thead>
              <tr>
                <th scope="col">Resource</th>
                {ACTIONS.map((a) => <th key={a.id} scope="col">{a.label}</th>)}
              </tr>
            </thead>
            <tbody>
              {RESOURCES.map((r) => (
                <tr key={r.id}>
                  <th scope="row">{r.label}</th>
                  {ACTIONS.map((a) => {
                    const p = `${r.id}.${a.id}`;
                    return (
                      <td key={a.id}>
                        <label className="check">
                          <input type="checkbox" checked={permissions.includes(p)} onChange={(e) => toggle(p, e.target.checked)} aria-label={`${r.label}: ${a.label.toLowerCase()}`} />
                          <span className="mono small muted">{p}</span>
                        </label>
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
          <button type="button" className="link-button small" onClick={() => setPermissions(permissions.length === ALL_PERMISSIONS.length ? [] : [...ALL_PERMISSIONS])}>
            {permissions.length === ALL_PERMISSIONS.length ? 'Clear all' : 'Select all'}
          </button>
          {permError && <p className="field-error" role="alert">{permError}</p>}
        </fieldset>
        <Field label="Rate limit (optional)" hint="Requests per window for this key. Leave empty to use the server default." error={error?.field === 'rate_limit' ? error.message : null}>
          <input type="text" inputMode="numeric" value={rateLimit} onChange={(e) => setRateLimit(e.target.value)} placeholder="Default" className="input-short" />
        </Field>
        <div className="form-actions">
          <button type="button" className="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="button button-primary" disabled={busy}>{busy ? 'Creating…' : 'Create key'}</button>
        </div>
      </form>
    </Dialog>
  );
}
