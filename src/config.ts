// One validated, frozen configuration object, read from the environment (DESIGN.md "Configuration").
// A bad value stops the process with a message naming the variable.

export type Role = 'all' | 'api' | 'worker';

export interface Config {
  readonly port: number;
  readonly host: string;
  /** A second port for /healthz, /readyz and /metrics only (WAYPOST_METRICS_PORT); null: none. */
  readonly metricsPort: number | null;
  /** The bearer token /metrics asks for (WAYPOST_METRICS_TOKEN); null: none, and the API port serves no /metrics. */
  readonly metricsToken: string | null;
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
  /** Delivery worker tuning (see WORKER_TUNING; defaults measured in docs/PERFORMANCE.md). */
  readonly prefetchRounds: number;
  readonly heldRounds: number;
  readonly successBatchMax: number;
  readonly gatherBelow: number;
  readonly gatherMs: number;
  readonly recordMarginMs: number;
  readonly claimRetryMs: number;
  readonly claimRetryMaxMs: number;
  readonly logRetentionDays: number;
  /**
   * Days delivery attempts keep the payload sent (WAYPOST_PAYLOAD_RETENTION_DAYS) and the receiver's answer
   * (WAYPOST_RESPONSE_RETENTION_DAYS) when the console sets none; null: as long as the delivery itself.
   */
  readonly payloadRetentionDays: number | null;
  readonly responseRetentionDays: number | null;
  /** Days the audit log keeps an entry when the console setting is not set (WAYPOST_AUDIT_RETENTION_DAYS, 365). */
  readonly auditRetentionDays: number;
  /** Days the event feed keeps every event (WAYPOST_EVENT_RETENTION_DAYS, default 30). */
  readonly eventRetentionDays: number;
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

/** A whole number, or null when the variable is unset or empty. */
function optionalInt(env: Env, name: string, min: number, max: number): number | null {
  return optional(env, name) === null ? null : int(env, name, min, min, max);
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
    if (v.length === 'sqlite:'.length) {
      throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path, e.g. sqlite:./data/waypost.db');
    }
    return v;
  }
  if (/^postgres(ql)?:\/\//.test(v)) return v;
  throw new ConfigError('DATABASE_URL', `expected sqlite:PATH or postgres://…, got "${v}"`);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
export const DEFAULT_RETRY_DELAYS_MS = [60_000, 300_000, 900_000, 1_800_000];
export const VERSION = '0.1.0';

type IntField = { env: string; fallback: number; min: number; max: number };

/** The delivery worker's whole-number settings: variable, default, range (also checked on SDK overrides). */
const DELIVERY_INTS = {
  deliveryTimeoutMs: { env: 'WAYPOST_DELIVERY_TIMEOUT_MS', fallback: 30_000, min: 1, max: 600_000 },
  deliveryConcurrency: { env: 'WAYPOST_DELIVERY_CONCURRENCY', fallback: 64, min: 1, max: 10_000 },
  perWebhookConcurrency: { env: 'WAYPOST_WEBHOOK_CONCURRENCY', fallback: 16, min: 1, max: 10_000 },
  leaseMs: { env: 'WAYPOST_LEASE_MS', fallback: 60_000, min: 100, max: Number.MAX_SAFE_INTEGER },
  pollMs: { env: 'WAYPOST_POLL_MS', fallback: 1_000, min: 10, max: 3_600_000 },
  // Rounds of deliveryConcurrency claimed ahead of the senders (2 -> 4 halved the claims' cost).
  prefetchRounds: { env: 'WAYPOST_PREFETCH_ROUNDS', fallback: 4, min: 1, max: 64 },
  // Rounds of perWebhookConcurrency one webhook may hold before claims pass over it (a slow one cannot starve others).
  heldRounds: { env: 'WAYPOST_WEBHOOK_HELD_ROUNDS', fallback: 2, min: 1, max: 64 },
  successBatchMax: { env: 'WAYPOST_SUCCESS_BATCH_MAX', fallback: 200, min: 1, max: 10_000 },
  // A success batch smaller than this waits gatherMs for more: one commit then serves many successes.
  gatherBelow: { env: 'WAYPOST_SUCCESS_GATHER_BELOW', fallback: 32, min: 0, max: 10_000 },
  gatherMs: { env: 'WAYPOST_SUCCESS_GATHER_MS', fallback: 5, min: 0, max: 1_000 },
  // Time a lease must outlast an attempt's timeout, for the result to be written.
  recordMarginMs: { env: 'WAYPOST_RECORD_MARGIN_MS', fallback: 1_000, min: 0, max: 600_000 },
  claimRetryMs: { env: 'WAYPOST_CLAIM_RETRY_MS', fallback: 100, min: 1, max: 600_000 },
  claimRetryMaxMs: { env: 'WAYPOST_CLAIM_RETRY_MAX_MS', fallback: 5_000, min: 1, max: 3_600_000 },
} satisfies Record<string, IntField>;

type DeliveryInts = { -readonly [K in keyof typeof DELIVERY_INTS]: number };

function ints(env: Env, fields: typeof DELIVERY_INTS): DeliveryInts {
  const out: Record<string, number> = {};
  for (const [key, f] of Object.entries(fields)) out[key] = int(env, f.env, f.fallback, f.min, f.max);
  return out as DeliveryInts;
}

/**
 * The configuration with an SDK caller's overrides, checked like the environment: a bad value throws a ConfigError
 * naming the field (`config.prefetchRounds`).
 */
export function withOverrides(base: Config, overrides: Partial<Config> = {}): Config {
  for (const [key, f] of Object.entries(DELIVERY_INTS) as Array<[keyof DeliveryInts, IntField]>) {
    const v: unknown = overrides[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < f.min || v > f.max) {
      throw new ConfigError(`config.${key}`, `expected a whole number from ${f.min} to ${f.max}, got ${String(v)}`);
    }
  }
  const delaysMs: unknown = overrides.retryDelaysMs;
  if (delaysMs !== undefined && (!Array.isArray(delaysMs)
    || delaysMs.some((d) => typeof d !== 'number' || !Number.isInteger(d) || d < 0))) {
    throw new ConfigError('config.retryDelaysMs', 'expected a list of whole millisecond delays');
  }
  return Object.freeze({ ...base, ...overrides });
}

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = str(env, 'HOST', '127.0.0.1');
  if (!/^[A-Za-z0-9.:_-]+$/.test(host)) {
    throw new ConfigError('HOST', `expected an IP address or host name to listen on, got "${host}"`);
  }
  const listening = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const baseUrl = (url(env, 'WAYPOST_BASE_URL', listening, ['http:', 'https:']) as string).replace(/\/+$/, '');
  const rateLimit = int(env, 'WAYPOST_RATE_LIMIT', 600, 1);
  const alertEmail = optional(env, 'ALERT_EMAIL');
  if (alertEmail !== null && !/^[^@\s]+@[^@\s]+$/.test(alertEmail)) {
    throw new ConfigError('ALERT_EMAIL', `not an e-mail address: "${alertEmail}"`);
  }
  const secretKey = optional(env, 'WAYPOST_SECRET_KEY');
  if (secretKey !== null && secretKey.length < 16) {
    throw new ConfigError('WAYPOST_SECRET_KEY', 'must be at least 16 characters');
  }
  const metricsPort = optional(env, 'WAYPOST_METRICS_PORT') === null ? null
    : int(env, 'WAYPOST_METRICS_PORT', 0, 1, 65535);
  const metricsToken = optional(env, 'WAYPOST_METRICS_TOKEN');
  // Sent in a header by Prometheus: printable, no spaces; long enough not to be guessed.
  if (metricsToken !== null && !/^[\x21-\x7e]{16,}$/.test(metricsToken)) {
    throw new ConfigError('WAYPOST_METRICS_TOKEN', 'must be at least 16 characters, without spaces '
      + '(e.g. openssl rand -hex 32)');
  }
  return Object.freeze({
    port,
    host,
    metricsPort,
    metricsToken,
    baseUrl,
    databaseUrl: databaseUrl(env),
    redisUrl: url(env, 'REDIS_URL', null, ['redis:', 'rediss:']),
    smtpUrl: url(env, 'SMTP_URL', null, ['smtp:', 'smtps:']),
    alertEmail,
    hostToken: optional(env, 'WAYPOST_HOST_TOKEN'),
    secretKey,
    serviceName: (() => {
      const v = str(env, 'WAYPOST_SERVICE_NAME', 'Waypost');
      if (!/^[A-Za-z][A-Za-z0-9-]{0,31}$/.test(v)) {
        const message = `must be letters, digits and dashes (usable in a header name), got "${v}"`;
        throw new ConfigError('WAYPOST_SERVICE_NAME', message);
      }
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
    ...ints(env, DELIVERY_INTS),
    logRetentionDays: int(env, 'WAYPOST_LOG_RETENTION_DAYS', 30, 1, 3650),
    payloadRetentionDays: optionalInt(env, 'WAYPOST_PAYLOAD_RETENTION_DAYS', 1, 3650),
    responseRetentionDays: optionalInt(env, 'WAYPOST_RESPONSE_RETENTION_DAYS', 1, 3650),
    auditRetentionDays: int(env, 'WAYPOST_AUDIT_RETENTION_DAYS', 365, 1, 3650),
    eventRetentionDays: int(env, 'WAYPOST_EVENT_RETENTION_DAYS', 30, 1, 3650),
    logLevel: (() => {
      const v = str(env, 'LOG_LEVEL', 'info');
      if (!LOG_LEVELS.includes(v)) {
        throw new ConfigError('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}, got "${v}"`);
      }
      return v;
    })(),
    version: VERSION,
  });
}

/** The REST API root path, e.g. `/rest/waypost/api/v1`. */
export function apiRoot(config: Config): string {
  return `/${config.restPrefix}/${config.namespace}/api/v1`;
}
