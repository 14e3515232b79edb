// Client-side checks shared by the sign-in side forms (setup) and settings, with the server's limits
// (src/admin/accounts.ts, src/admin/settings.ts), so every invalid field is reported at once before sending.
export const EMAIL_RE = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
export const EMAIL_MAX = 254;
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;
export const RETENTION_MAX_DAYS = 3650;

export type FieldErrors = Record<string, string>;

export function checkEmail(email: string, { optional = false } = {}): string | null {
  const v = email.trim();
  if (v === '') return optional ? null : 'Enter your e-mail address.';
  if (!EMAIL_RE.test(v) || v.length > EMAIL_MAX) return 'Enter a valid e-mail address, like ops@example.com.';
  return null;
}

export function checkSetup(email: string, password: string, confirm: string): FieldErrors {
  const errors: FieldErrors = {};
  const emailError = checkEmail(email);
  if (emailError) errors.email = emailError;
  if (password.length < PASSWORD_MIN) errors.password = `Use at least ${PASSWORD_MIN} characters.`;
  else if (password.length > PASSWORD_MAX) errors.password = `Use at most ${PASSWORD_MAX} characters.`;
  if (confirm !== password) errors.confirm = 'The two passwords do not match.';
  return errors;
}

/** The settings form's values as typed; an empty payload or response retention keeps them with the delivery. */
export interface SettingsValues {
  email: string;
  days: string;
  payloadDays: string;
  responseDays: string;
  auditDays: string;
}

const WHOLE_DAYS = `Enter a whole number of days from 1 to ${RETENTION_MAX_DAYS}.`;

export function checkSettings({ email, days, payloadDays, responseDays, auditDays }: SettingsValues): FieldErrors {
  const errors: FieldErrors = {};
  const emailError = checkEmail(email, { optional: true });
  if (emailError) errors.alert_email = `${emailError} Or leave it empty to use the default.`;
  const whole = (v: string) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= RETENTION_MAX_DAYS;
  const d = days.trim();
  const logOk = whole(d);
  if (!logOk) errors.log_retention_days = WHOLE_DAYS;
  if (!whole(auditDays.trim())) errors.audit_retention_days = WHOLE_DAYS;
  const within = logOk ? Number(d) : RETENTION_MAX_DAYS;
  for (const [field, value] of [['payload_retention_days', payloadDays], ['response_retention_days', responseDays]]) {
    const v = value.trim();
    if (v !== '' && (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > within)) {
      errors[field] = `Enter a whole number of days from 1 to ${within} (the log's), or leave it empty.`;
    }
  }
  return errors;
}
