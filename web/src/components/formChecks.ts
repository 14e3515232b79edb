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

export function checkSettings(email: string, days: string): FieldErrors {
  const errors: FieldErrors = {};
  const emailError = checkEmail(email, { optional: true });
  if (emailError) errors.alert_email = `${emailError} Or leave it empty to use the default.`;
  const d = days.trim();
  if (!/^\d+$/.test(d) || Number(d) < 1 || Number(d) > RETENTION_MAX_DAYS) {
    errors.log_retention_days = `Enter a whole number of days from 1 to ${RETENTION_MAX_DAYS}.`;
  }
  return errors;
}
