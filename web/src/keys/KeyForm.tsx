// Label, permissions grouped by resource and an optional rate limit: the fields of "Add key" and "Edit key".
// Every invalid field is marked at once, with the server's limits (src/api/keys.ts) checked here first.
import { useState, type FormEvent } from 'react';
import { flushSync } from 'react-dom';
import { ApiError } from '../api';
import { Field } from '../components/Field';
import { focusFirstProblem } from '../components/focus';
import { confirmLeave, useUnsavedChanges } from '../components/leaveGuard';
import { plural } from '../format';
import { ACTIONS, ALL_PERMISSIONS, RESOURCES } from './permissions';

export const LABEL_MAX = 200;
export const RATE_LIMIT_MAX = 1_000_000;

export interface KeyFormValues {
  label: string;
  permissions: string[];
  rateLimit: string; // as typed; empty = the server's default
}

/** The server's rate limit defaults (GET /keys), for the hint. */
export interface RateLimitInfo {
  default: number;
  window_s: number;
}

type Errors = Partial<Record<'label' | 'permissions' | 'rate_limit' | 'form', string>>;
const FIELDS = ['label', 'permissions', 'rate_limit'];

export function windowText(seconds: number): string {
  if (seconds % 3600 === 0) return plural(seconds / 3600, 'hour');
  if (seconds % 60 === 0) return seconds === 60 ? 'minute' : plural(seconds / 60, 'minute');
  return plural(seconds, 'second');
}

export function checkKey(v: KeyFormValues): Errors {
  const errors: Errors = {};
  const label = v.label.trim();
  if (!label) errors.label = 'Give the key a label, e.g. the application that uses it.';
  else if (label.length > LABEL_MAX) errors.label = `Use at most ${LABEL_MAX} characters.`;
  if (v.permissions.length === 0) errors.permissions = 'Choose at least one permission.';
  const limit = v.rateLimit.trim();
  if (limit && (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > RATE_LIMIT_MAX)) {
    errors.rate_limit = Number(limit) === 0 && /^\d+$/.test(limit)
      ? 'A key needs at least 1 request per window. To stop a key, disable it instead; '
        + 'leave this empty for the default.'
      : `Enter a whole number of requests from 1 to ${RATE_LIMIT_MAX.toLocaleString('en')}, `
        + 'or leave it empty for the default.';
  }
  return errors;
}

/** The request body for the values (rate_limit null = back to the default). */
export function keyBody(v: KeyFormValues): { label: string; permissions: string[]; rate_limit: number | null } {
  return {
    label: v.label.trim(), permissions: v.permissions,
    rate_limit: v.rateLimit.trim() ? Number(v.rateLimit.trim()) : null,
  };
}

interface Props {
  initial: KeyFormValues;
  limits: RateLimitInfo | null;
  submitLabel: string;
  busyLabel: string;
  onSubmit: (values: KeyFormValues) => Promise<void>;
  onCancel: () => void;
}

export function KeyForm({ initial, limits, submitLabel, busyLabel, onSubmit, onCancel }: Props) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const dirty = values.label !== initial.label || values.rateLimit !== initial.rateLimit
    || values.permissions.length !== initial.permissions.length
    || values.permissions.some((p) => !initial.permissions.includes(p));
  const guard = useUnsavedChanges(dirty);
  const { permissions } = values;
  const toggle = (p: string, on: boolean) => setValues((v) => ({
    ...v, permissions: on ? [...v.permissions, p] : v.permissions.filter((x) => x !== p),
  }));

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const found = checkKey(values);
    flushSync(() => setErrors(found));
    if (Object.keys(found).length > 0) {
      focusFirstProblem(form);
      return;
    }
    setBusy(true);
    guard.leaving();
    try {
      await onSubmit(values);
    } catch (err) {
      guard.stay();
      const apiErr = err instanceof ApiError ? err : new ApiError(0, 'error', String(err), null);
      const field = FIELDS.includes(apiErr.field ?? '') ? apiErr.field as keyof Errors : 'form';
      flushSync(() => setErrors({ [field]: apiErr.message }));
      focusFirstProblem(form);
    } finally {
      setBusy(false);
    }
  };
  const cancel = () => {
    if (!confirmLeave()) return;
    guard.leaving();
    onCancel();
  };

  const per = limits ? windowText(limits.window_s) : 'window';
  const hint = limits
    ? `Requests per ${per} for this key, 1 to ${RATE_LIMIT_MAX.toLocaleString('en')}. `
      + `Empty: the server default, ${limits.default.toLocaleString('en')} per ${per}.`
    : 'Requests per window for this key. Leave empty to use the server default.';
  const count = Object.keys(errors).filter((f) => f !== 'form').length;
  return (
    <form onSubmit={submit} noValidate className="form">
      {errors.form && <p className="form-error" role="alert">{errors.form}</p>}
      {count > 1 && <p className="form-error" role="alert">Fix the {count} fields marked below.</p>}
      <Field label="Label" hint="Who or what uses this key, e.g. “Partner portal”." error={errors.label}>
        <input type="text" value={values.label} maxLength={LABEL_MAX} autoFocus
          onChange={(e) => setValues({ ...values, label: e.target.value })} />
      </Field>
      <fieldset className={`field${errors.permissions ? ' field-invalid' : ''}`}>
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
                        <input type="checkbox" checked={permissions.includes(p)}
                          onChange={(e) => toggle(p, e.target.checked)}
                          aria-label={`${r.label}: ${a.label.toLowerCase()}`} />
                        {/* May break after the dot, so the three columns fit a phone. */}
                        <span className="mono small muted">{r.id}.<wbr />{a.id}</span>
                      </label>
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
        <button type="button" className="link-button small" onClick={() => setValues({
          ...values, permissions: permissions.length === ALL_PERMISSIONS.length ? [] : [...ALL_PERMISSIONS],
        })}>
          {permissions.length === ALL_PERMISSIONS.length ? 'Clear all' : 'Select all'}
        </button>
        {errors.permissions && <p className="field-error" role="alert">{errors.permissions}</p>}
      </fieldset>
      <Field label="Rate limit (optional)" hint={hint} error={errors.rate_limit}>
        <input type="text" inputMode="numeric" value={values.rateLimit}
          onChange={(e) => setValues({ ...values, rateLimit: e.target.value })}
          placeholder={limits ? `Default: ${limits.default}` : 'Default'} className="input-short" />
      </Field>
      <div className="form-actions">
        <button type="button" className="button" onClick={cancel}>Cancel</button>
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? busyLabel : submitLabel}
        </button>
      </div>
    </form>
  );
}
