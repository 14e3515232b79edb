// One error type with a code and a status, turned into problem JSON (RFC 9457) in one handler (src/http/problem.ts).

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail?: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail ?? title);
    this.name = 'AppError';
  }
  get detail(): string {
    return this.message;
  }
}

export const badRequest = (code: string, detail: string, extra: Record<string, unknown> = {}) =>
  new AppError(400, code, 'Bad Request', detail, extra);
export const invalidParameter = (param: string, detail: string) =>
  new AppError(400, 'invalid_parameter', 'Invalid parameter', `${param}: ${detail}`, { parameter: param });
export const unauthorized = (code: string, detail: string) => new AppError(401, code, 'Unauthorized', detail);
export const forbidden = (code: string, detail: string) => new AppError(403, code, 'Forbidden', detail);
export const notFound = (what: string) => new AppError(404, 'not_found', 'Not Found', `${what} was not found`);
export const conflict = (code: string, detail: string) => new AppError(409, code, 'Conflict', detail);
export const tooManyRequests = (detail: string, retryAfterS: number) =>
  new AppError(429, 'rate_limited', 'Too Many Requests', detail, { retry_after: retryAfterS });
export const databaseUnavailable = () => new AppError(503, 'database_unavailable', 'Service Unavailable',
  'The database is unreachable or busy (a lost connection, a failover, a long write elsewhere); retry shortly.',
  { retry_after: 1 });

// PostgreSQL SQLSTATEs meaning "no usable connection": class 08 (connection exception), admin / crash shutdown and
// "cannot connect now" (a restart or failover in progress), too many connections.
const CONNECTION_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const CONNECTION_ERRNOS = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
// What pg and pg-pool say (with no code) when the socket went away or the client is unusable after that.
const CONNECTION_MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'Client has encountered a connection error',
  'timeout exceeded when trying to connect',
];

/**
 * Whether an error means the database could not be reached or dropped the connection (a failover, a restart, a
 * network cut) rather than a fault in the request: the same request succeeds again on a fresh connection. Causes and
 * the parts of an AggregateError (a refused connection tried on IPv4 and IPv6) are looked through.
 */
export function isConnectionError(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  const { code, message, cause, errors } = err as Partial<Record<'code' | 'message' | 'cause' | 'errors', unknown>>;
  if (typeof code === 'string') {
    if (/^08[0-9A-Z]{3}$/.test(code) || CONNECTION_SQLSTATES.has(code) || CONNECTION_ERRNOS.has(code)) return true;
    // SQLite: another process held the write lock for longer than busy_timeout; the same request succeeds later.
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT') return true;
  }
  if (typeof message === 'string' && CONNECTION_MESSAGES.some((m) => message.includes(m))) return true;
  if (Array.isArray(errors) && errors.some((e) => isConnectionError(e, depth + 1))) return true;
  return isConnectionError(cause, depth + 1);
}

// The errors of a connection that was open and then died (the backend was terminated or crashed, the socket was cut),
// as opposed to one that could not be made (refused, timed out, too many) or SQLite's busy file: only these say a
// fresh connection, made at once, is likely to work.
// 57P01 admin_shutdown (pg_terminate_backend, a fast shutdown), 57P02 crash_shutdown, 08000/08003/08006/08007: the
// connection failed or does not exist any more (08001 and 08004, a connection refused, are left out).
const DROPPED_SQLSTATES = new Set(['57P01', '57P02', '08000', '08003', '08006', '08007']);
const DROPPED_ERRNOS = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
const DROPPED_MESSAGES = ['Connection terminated unexpectedly', 'Client has encountered a connection error'];

/** Whether an error means an open database connection died under the request (see isConnectionError). */
export function isDroppedConnection(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  const { code, message, cause } = err as Partial<Record<'code' | 'message' | 'cause', unknown>>;
  if (typeof code === 'string' && (DROPPED_SQLSTATES.has(code) || DROPPED_ERRNOS.has(code))) return true;
  if (typeof message === 'string' && DROPPED_MESSAGES.some((m) => message.includes(m))) return true;
  return isDroppedConnection(cause, depth + 1);
}
