// One validated, frozen configuration object, read from the environment (DESIGN.md "Configuration").
// A bad value stops the process with a message naming the variable.

export type Role = 'all' | 'api' | 'worker';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly baseUrl: string;
  readonly databaseUrl: string;
  readonly redisUrl: string | null;
  readonly smtpUrl: string | null;
  readonly alertEmail: string | null;
  readonly hostToken: string | null;
  readonly secretKey: string | null;
  readonly serviceName: string;
  readonly restPrefix: string;
  readonly namespace: string;
  readonly cacheTtlS: number;
  readonly cacheMaxBytes: number;
  readonly rateLimit: number;
  readonly rateLimitWindowS: number;
  readonly authFailLimit: number;
  readonly allowPrivateTargets: boolean;
  readonly retryDelaysMs: readonly number[];
  readonly deliveryTimeoutMs: number;
  readonly deliveryConcurrency: number;
  readonly perWebhookConcurrency: number;
  readonly leaseMs: number;
  readonly pollMs: number;
  readonly logRetentionDays: number;
  readonly logLevel: string;
  readonly version: string;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

function optional(env: Env, name: string): string | null {
  const v = env[name];
  return v === undefined || v === '' ? null : v;
}

function int(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new ConfigError(name, `expected a number from ${min} to ${max}, got ${n}`);
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

function url(env: Env, name: string, fallback: string | null, protocols: string[]): string | null {
  const raw = optional(env, name) ?? fallback;
  if (raw === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `not a valid URL: "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `expected a URL starting with ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

function pathSegment(env: Env, name: string, fallback: string): string {
  const v = str(env, name, fallback).replace(/^\/+|\/+$/g, '');
  if (!/^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/.test(v)) throw new ConfigError(name, `not a valid URL path: "${v}"`);
  return v;
}

function delays(env: Env, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length !== 4 || parts.some((p) => !/^\d+$/.test(p))) {
    throw new ConfigError(name, `expected four comma-separated millisecond delays, got "${raw}"`);
  }
  return parts.map(Number);
}

function databaseUrl(env: Env): string {
  const v = str(env, 'DATABASE_URL', 'sqlite:./data/waypost.db');
  if (v.startsWith('sqlite:')) {
    if (v.length === 'sqlite:'.length) throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path, e.g. sqlite:./data/waypost.db');
    return v;
  }
  if (/^postgres(ql)?:\/\//.test(v)) return v;
  throw new ConfigError('DATABASE_URL', `expected sqlite:PATH or postgres://…, got "${v}"`);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
export const DEFAULT_RETRY_DELAYS_MS = [60_000, 300_000, 900_000, 1_800_000];
export const VERSION = '0.1.0';

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = str(env, 'HOST', '127.0.0.1');
  if (!/^[A-Za-z0-9.:_-]+$/.test(host)) throw new ConfigError('HOST', `expected an IP address or host name to listen on, got "${host}"`);
  const baseUrl = (url(env, 'WAYPOST_BASE_URL', `http://${host.includes(':') ? `[${host}]` : host}:${port}`, ['http:', 'https:']) as string).replace(/\/+$/, '');
  const rateLimit = int(env, 'WAYPOST_RATE_LIMIT', 600, 1);
  const alertEmail = optional(env, 'ALERT_EMAIL');
  if (alertEmail !== null && !/^[^@\s]+@[^@\s]+$/.test(alertEmail)) throw new ConfigError('ALERT_EMAIL', `not an e-mail address: "${alertEmail}"`);
  const secretKey = optional(env, 'WAYPOST_SECRET_KEY');
  if (secretKey !== null && secretKey.length < 16) throw new ConfigError('WAYPOST_SECRET_KEY', 'must be at least 16 characters');
  return Object.freeze({
    port,
    host,
    baseUrl,
    databaseUrl: databaseUrl(env),
    redisUrl: url(env, 'REDIS_URL', null, ['redis:', 'rediss:']),
    smtpUrl: url(env, 'SMTP_URL', null, ['smtp:', 'smtps:']),
    alertEmail,
    hostToken: optional(env, 'WAYPOST_HOST_TOKEN'),
    secretKey,
    serviceName: (() => {
      const v = str(env, 'WAYPOST_SERVICE_NAME', 'Waypost');
      if (!/^[A-Za-z][A-Za-z0-9-]{0,31}$/.test(v)) throw new ConfigError('WAYPOST_SERVICE_NAME', `must be letters, digits and dashes (usable in a header name), got "${v}"`);
      return v;
    })(),
    restPrefix: pathSegment(env, 'WAYPOST_REST_PREFIX', 'rest'),
    namespace: pathSegment(env, 'WAYPOST_NAMESPACE', 'waypost'),
    cacheTtlS: int(env, 'WAYPOST_CACHE_TTL_S', 3600, 0, 86_400),
    cacheMaxBytes: int(env, 'WAYPOST_CACHE_MAX_BYTES', 64 * 1024 * 1024, 0),
    rateLimit,
    rateLimitWindowS: int(env, 'WAYPOST_RATE_LIMIT_WINDOW_S', 60, 1, 86_400),
    authFailLimit: int(env, 'WAYPOST_AUTH_FAIL_LIMIT', 30, 1),
    allowPrivateTargets: bool(env, 'WAYPOST_ALLOW_PRIVATE_TARGETS', false),
    retryDelaysMs: Object.freeze(delays(env, 'WAYPOST_RETRY_DELAYS_MS', DEFAULT_RETRY_DELAYS_MS)),
    deliveryTimeoutMs: int(env, 'WAYPOST_DELIVERY_TIMEOUT_MS', 30_000, 1, 600_000),
    deliveryConcurrency: int(env, 'WAYPOST_DELIVERY_CONCURRENCY', 64, 1, 10_000),
    perWebhookConcurrency: int(env, 'WAYPOST_WEBHOOK_CONCURRENCY', 16, 1, 10_000),
    leaseMs: int(env, 'WAYPOST_LEASE_MS', 60_000, 100),
    pollMs: int(env, 'WAYPOST_POLL_MS', 1_000, 10, 3_600_000),
    logRetentionDays: int(env, 'WAYPOST_LOG_RETENTION_DAYS', 30, 1, 3650),
    logLevel: (() => {
      const v = str(env, 'LOG_LEVEL', 'info');
      if (!LOG_LEVELS.includes(v)) throw new ConfigError('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}, got "${v}"`);
      return v;
    })(),
    version: VERSION,
  });
}

/** The REST API root path, e.g. `/rest/waypost/api/v1`. */
export function apiRoot(config: Config): string {
  return `/${config.restPrefix}/${config.namespace}/api/v1`;
}
