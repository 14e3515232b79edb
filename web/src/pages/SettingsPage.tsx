// Settings > Alerts & retention: where failure e-mails go, how long the delivery log is kept and, within it, the
// payloads sent and the receivers' answers; and whether
// webhooks may target private addresses, which only the server changes.
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, get, put } from '../api';
import { Field } from '../components/Field';
import { checkSettings, type FieldErrors, type SettingsValues } from '../components/formChecks';
import { useUnsavedChanges } from '../components/leaveGuard';
import { useToast } from '../components/Toasts';
import { useView } from '../components/view';
import type { Settings } from '../types';

const SOURCE: Record<Settings['alert_email_source'], string> = {
  setting: 'Set here.',
  config: 'From the ALERT_EMAIL environment variable.',
  first_admin: 'The default: the first admin’s address.',
  none: 'No address yet: alerts are only stored and shown in Logs.',
};

const ALLOW = 'npx waypost settings set --allow-private-targets true';
const REFUSE = 'npx waypost settings set --allow-private-targets false';

/** Shown, not changed here: the SSRF guard keeps people who manage webhooks off the server's own network. */
function PrivateTargets({ state }: { state: Settings['private_targets'] }) {
  return (
    <section className="card settings-card" aria-labelledby="private-targets" data-testid="private-targets">
      <h2 id="private-targets">Webhook targets</h2>
      {state.allowed ? (
        <div className="callout callout-amber small">
          <strong>Private addresses are allowed</strong> (localhost, 127.0.0.1, your network), for local development
          {state.source === 'environment'
            ? <>: the server runs with <code>WAYPOST_ALLOW_PRIVATE_TARGETS=true</code>.</>
            : <>. Refuse them again on the server: <code>{REFUSE}</code></>}
        </div>
      ) : (
        <p className="muted small">
          Webhooks must target public addresses: localhost, 127.0.0.1 and your network are refused. For local
          development, allow them on the server: <code>{ALLOW}</code>
        </p>
      )}
    </section>
  );
}

/** The form's values for saved settings (empty: the default, or "as long as the delivery"). */
const shown = (s: Settings): SettingsValues => ({
  email: s.alert_email_source === 'setting' ? s.alert_email ?? '' : '',
  days: String(s.log_retention_days),
  payloadDays: s.payload_retention_days === null ? '' : String(s.payload_retention_days),
  responseDays: s.response_retention_days === null ? '' : String(s.response_retention_days),
  auditDays: String(s.audit_retention_days),
});

export function SettingsPage() {
  const toast = useToast();
  const [settings, setSettings] = useState<Settings | null>(null);
  const [values, setValues] = useState<SettingsValues>({ email: '', days: '', payloadDays: '', responseDays: '',
    auditDays: '' });
  const set = (name: keyof SettingsValues) => (e: { target: { value: string } }) =>
    setValues((v) => ({ ...v, [name]: e.target.value }));
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const heading = useView('Alerts & retention');
  const saved = settings ? shown(settings) : null;
  useUnsavedChanges(saved !== null
    && (Object.keys(saved) as Array<keyof SettingsValues>).some((k) => values[k] !== saved[k]));

  const load = (s: Settings) => {
    setSettings(s);
    setValues(shown(s));
  };
  const { email, days } = values;
  const optionalDays = (v: string) => (v.trim() === '' ? null : Number(v.trim()));
  useEffect(() => {
    get<Settings>('/settings').then(load, (err: ApiError) => setError(err));
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const found = checkSettings(values); // every invalid field at once
    setFieldErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      load(await put<Settings>('/settings', {
        alert_email: email.trim(), log_retention_days: Number(days.trim()),
        payload_retention_days: optionalDays(values.payloadDays),
        response_retention_days: optionalDays(values.responseDays),
        audit_retention_days: Number(values.auditDays.trim()),
      }));
      toast('Settings saved');
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'error', String(err), null));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <p className="breadcrumb">Settings <span aria-hidden="true">/</span> Alerts &amp; retention</p>
      <h1 tabIndex={-1} ref={heading}>Alerts &amp; retention</h1>
      <p className="lede muted">
        Where Waypost sends failure e-mails, and how long it keeps delivery logs, their payloads and the audit log.
      </p>
      {!settings ? <p className="muted" aria-busy="true">{error ? error.message : 'Loading…'}</p> : (
        <form className="card settings-card form" onSubmit={submit} noValidate>
          {error && !error.field && <p className="form-error" role="alert">{error.message}</p>}
          <h2>Failure alerts</h2>
          <Field
            label="Alert e-mail address"
            hint={`Currently ${settings.alert_email ?? 'none'} — ${SOURCE[settings.alert_email_source]} `
              + 'Leave empty to use the default.'}
            error={fieldErrors.alert_email ?? (error?.field === 'alert_email' ? error.message : null)}
          >
            <input type="email" value={email} onChange={set('email')} autoComplete="email"
              placeholder={settings.alert_email_source === 'setting' ? ''
                : settings.alert_email ?? 'ops@example.com'} />
          </Field>
          <div className="callout callout-blue small">
            Failure e-mails are always sent: a warning after the 3rd and 4th failed attempt, and a critical alert when a
            webhook is disabled. They cannot be switched off here.
            {!settings.smtp_configured && (
              <> SMTP is not configured (<code>SMTP_URL</code>), so alerts are stored and shown under Logs › E-mail
                alerts.</>
            )}
          </div>
          <h2>Delivery logs</h2>
          <Field label="Keep delivery logs for (days)"
            hint="Deliveries, attempts and alerts older than this are deleted automatically. 1 to 3650 days."
            error={fieldErrors.log_retention_days ?? (error?.field === 'log_retention_days' ? error.message : null)}>
            <input type="text" inputMode="numeric" className="input-short" value={days} onChange={set('days')} />
          </Field>
          <Field label="Keep payloads sent for (days)"
            hint={'The body of each request sent to a receiver (it holds travellers\' names and e-mails) is blanked '
              + 'after this many days; the delivery stays in the log. Empty: as long as the delivery.'}
            error={fieldErrors.payload_retention_days
              ?? (error?.field === 'payload_retention_days' ? error.message : null)}>
            <input type="text" inputMode="numeric" className="input-short" value={values.payloadDays}
              onChange={set('payloadDays')} data-testid="payload-retention" />
          </Field>
          <Field label="Keep receivers’ responses for (days)"
            hint={'What receivers answered (body and headers) is blanked after this many days. '
              + 'Empty: as long as the delivery.'}
            error={fieldErrors.response_retention_days
              ?? (error?.field === 'response_retention_days' ? error.message : null)}>
            <input type="text" inputMode="numeric" className="input-short" value={values.responseDays}
              onChange={set('responseDays')} data-testid="response-retention" />
          </Field>
          <h2>Audit log</h2>
          <Field label="Keep the audit log for (days)"
            hint={'Who changed webhooks, keys and settings, shown under Webhooks & API › Audit log. Older entries are '
              + 'deleted automatically. 1 to 3650 days.'}
            error={fieldErrors.audit_retention_days
              ?? (error?.field === 'audit_retention_days' ? error.message : null)}>
            <input type="text" inputMode="numeric" className="input-short" value={values.auditDays}
              onChange={set('auditDays')} />
          </Field>
          <div className="form-actions">
            <button type="submit" className="button button-primary" disabled={busy}>
              {busy ? 'Saving…' : 'Save settings'}
            </button>
          </div>
        </form>
      )}
      {settings && <PrivateTargets state={settings.private_targets} />}
    </>
  );
}
