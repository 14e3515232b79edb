// Structured JSON logs (pino). Credentials are redacted wherever they could appear.
import { pino, type Logger } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["access-token"]',
  'req.headers["access-secret"]',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  '*.secret',
  '*.password',
  'secret',
  'password',
];

/** Removes credentials from a URL's query string before it is logged. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:accesstoken|accesssecret|token|secret)=)[^&#]*/gi, '$1[REDACTED]');
}

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[REDACTED]' }, base: { service: 'waypost' } }, destination as never);
}
