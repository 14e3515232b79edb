// Turns every error into application/problem+json (RFC 9457) in one place. Bad input is always a 4xx.
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, databaseUnavailable, isConnectionError } from '../errors.js';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  [extra: string]: unknown;
}

export function problemOf(err: AppError): Problem {
  return {
    type: `https://waypost.dev/problems/${err.code}`, title: err.title, status: err.status, detail: err.detail,
    code: err.code, ...err.extra,
  };
}

export function sendProblem(reply: FastifyReply, err: AppError): FastifyReply {
  return reply.code(err.status).type('application/problem+json').send(JSON.stringify(problemOf(err)));
}

function fromFastify(err: FastifyError): AppError {
  if (err.validation) {
    const v = err.validation[0];
    const where = err.validationContext ?? 'request';
    const field = (v?.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.')
      || (v?.params as { missingProperty?: string } | undefined)?.missingProperty || where;
    const code = where === 'querystring' ? 'invalid_parameter' : 'invalid_field';
    return new AppError(400, code, 'Bad Request', `${field} ${v?.message ?? 'is invalid'}`, { parameter: field });
  }
  const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
  if (status === 500) {
    return new AppError(500, 'internal_error', 'Internal Server Error',
      'Something went wrong on our side; it has been logged.');
  }
  // The title is the status's own reason phrase (413 is "Payload Too Large", not "Bad Request"), the code its
  // snake_case (payload_too_large, unsupported_media_type, not_found, bad_request).
  const title = STATUS_CODES[status] ?? 'Bad Request';
  return new AppError(status, title.toLowerCase().replace(/[^a-z0-9]+/g, '_'), title, err.message);
}

/**
 * A body refused by its declared length is read to its end and dropped when it declares at most this much, like
 * nginx's lingering close: Fastify closes the connection at once, and a client still sending then gets a reset that
 * can discard the 413 before it reads it (EPIPE instead of an answer). Past this, or with no length, it still closes.
 */
export const LINGER_BYTES = 64 * 1024 * 1024;

function lingerOnTooLarge(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (err.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') return;
  const declared = Number(request.headers['content-length']);
  // Node's server drains an unread body (req._dump) once the answer is out, and keeps the connection for the next.
  if (declared <= LINGER_BYTES && !request.raw.readableDidRead) reply.removeHeader('connection');
}

export function installProblemHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    lingerOnTooLarge(err, request, reply);
    // A lost or refused database connection (failover, restart) is not a bug: the client may retry at once, and the
    // next request gets a fresh connection from the pool.
    const lostDatabase = !(err instanceof AppError) && isConnectionError(err);
    const appErr = err instanceof AppError ? err : lostDatabase ? databaseUnavailable() : fromFastify(err);
    if (lostDatabase) request.log.warn({ err }, 'request failed: database unavailable');
    else if (appErr.status >= 500) request.log.error({ err }, 'request failed');
    if ((appErr.status === 429 || appErr.status === 503) && typeof appErr.extra.retry_after === 'number') {
      reply.header('Retry-After', String(appErr.extra.retry_after));
    }
    return sendProblem(reply, appErr);
  });
  app.setNotFoundHandler((request, reply) => sendProblem(reply,
    new AppError(404, 'not_found', 'Not Found', `No route for ${request.method} ${request.url.split('?')[0]}`)));
}
