// API key authentication, permissions and rate limiting, applied by one hook to every route whose config names a
// permission (`config: { apiPermission: 'bookings.list' }`, or '*' for any active key).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Core } from '../core.js';
import type { ApiResource } from '../records/schemas.js';
import { AppError, tooManyRequests, unauthorized } from '../errors.js';
import { KeyLookup } from './key-lookup.js';
import { secretMatches } from '../tokens.js';
import type { ApiServices } from './install.js';
import { ietfRateLimitHeaders, type WindowCount } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    apiPermission?: string;
    /** Answers of this route go through the response cache, under this resource. */
    apiResource?: ApiResource;
  }
  interface FastifyRequest {
    apiKey?: { id: string; permissions: string[] };
    /** The key a request named, even when it failed (usage counts). */
    apiKeyId?: string;
  }
}

export const QUERY_CREDENTIALS_WARNING =
  '299 - "Credentials in the query string are logged by proxies; use the Access-Token and Access-Secret headers"';
const LAST_USED_EVERY_MS = 60_000;

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Takes the credentials from the headers or the query string, and removes them from the query (never cached,
 * validated or echoed).
 */
function takeCredentials(req: FastifyRequest, reply: FastifyReply): { token?: string; secret?: string } {
  const query = req.query as Record<string, unknown> | undefined;
  const fromQuery = { token: query?.accesstoken, secret: query?.accesssecret };
  if (query) {
    delete query.accesstoken;
    delete query.accesssecret;
  }
  const token = headerValue(req.headers['access-token']);
  const secret = headerValue(req.headers['access-secret']);
  if (token !== undefined || secret !== undefined) return { token, secret };
  if (fromQuery.token !== undefined || fromQuery.secret !== undefined) {
    reply.header('Warning', QUERY_CREDENTIALS_WARNING);
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    return { token: str(fromQuery.token), secret: str(fromQuery.secret) };
  }
  return {};
}

/** X-RateLimit-* and the IETF RateLimit / RateLimit-Policy headers (policy "default": the key's quota). */
function setRateLimitHeaders(
  reply: FastifyReply, limit: number, windowS: number, w: WindowCount, now: number, policy = 'default',
): number {
  const remaining = Math.max(0, limit - w.count);
  const resetIn = Math.max(0, Math.ceil((w.resetAt - now) / 1000));
  reply.header('X-RateLimit-Limit', String(limit));
  reply.header('X-RateLimit-Remaining', String(remaining));
  reply.header('X-RateLimit-Reset', String(Math.ceil(w.resetAt / 1000)));
  reply.headers(ietfRateLimitHeaders(policy, limit, windowS, remaining, resetIn));
  return resetIn;
}

export function authenticate(core: Core, services: ApiServices) {
  const { config } = core;
  const windowS = config.rateLimitWindowS;
  const windowMs = windowS * 1000;
  const lastUsedWrites = new Map<string, number>();
  const keys = new KeyLookup(core, services.foreignWrites);

  const touchLastUsed = (id: string, lastUsedAt: string | null, now: number) => {
    const last = lastUsedWrites.get(id) ?? (lastUsedAt ? Date.parse(lastUsedAt) : 0);
    if (now - last < LAST_USED_EVERY_MS) return;
    lastUsedWrites.set(id, now);
    core.db.updateTable('api_keys').set({ last_used_at: new Date(now).toISOString() }).where('id', '=', id).execute()
      .catch((err) => core.log.warn({ err }, 'could not record last_used_at'));
  };

  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const permission = req.routeOptions.config?.apiPermission;
    if (!permission) return;
    services.foreignWrites.poll(); // before anything held in memory (keys, cached answers) is trusted
    const now = core.clock.now();
    const ipBucket = `authfail:${req.ip}`;
    const { token, secret } = takeCredentials(req, reply);

    // Every attempt counts as a failure of its address *before* its credentials are checked (one atomic increment,
    // shared by every process through Redis), and a success takes it back. So at most the limit of attempts per
    // window get an answer other than 429, however many arrive at once; an address over the limit is refused even
    // with good credentials, so guessing cannot continue.
    const attempt = await services.limiter.hit(ipBucket, windowMs, now);
    if (attempt.count > config.authFailLimit) {
      // Refused unchecked: not an attempt, so a client that keeps calling is not locked out for longer.
      await services.limiter.refund(ipBucket, windowMs, now);
      const retry = setRateLimitHeaders(reply, config.authFailLimit, windowS, attempt, now, 'failed-auth');
      throw tooManyRequests(
        `Too many failed authentications from this address; try again in ${retry} s.`,
        Math.max(1, retry),
      );
    }

    const fail = (err: AppError): never => {
      setRateLimitHeaders(reply, config.authFailLimit, windowS, attempt, now, 'failed-auth');
      throw err;
    };

    if (!token || !secret) {
      fail(
        unauthorized(
          'missing_credentials',
          'Send your API key and secret in the Access-Token and Access-Secret headers.',
        ),
      );
    }
    const key = token!.length <= 200 && !token!.includes('\0') ? await keys.find(token!) : undefined;
    if (!key) return fail(unauthorized('unknown_key', 'No API key matches this Access-Token.'));
    req.apiKeyId = key.id;
    if (!secretMatches(secret!, key.secretHash)) {
      return fail(unauthorized('invalid_secret', 'The Access-Secret does not match this API key.'));
    }
    if (!key.active) {
      return fail(unauthorized('key_disabled', 'This API key is disabled; an administrator can re-enable it.'));
    }
    // Not awaited: the answer does not depend on it, and a failure only errs towards refusing.
    services.limiter.refund(ipBucket, windowMs, now)
      .catch((err) => core.log.warn({ err }, 'could not refund an auth attempt'));

    const limit = key.rateLimit ?? config.rateLimit;
    const used = await services.limiter.hit(`key:${key.id}`, windowMs, now);
    const retry = setRateLimitHeaders(reply, limit, windowS, used, now);
    touchLastUsed(key.id, key.lastUsedAt, now);
    if (used.count > limit) {
      throw tooManyRequests(
        `Rate limit of ${limit} requests per ${windowS} s reached; try again in ${retry} s.`,
        Math.max(1, retry),
      );
    }

    if (permission !== '*' && !key.permissions.includes(permission)) {
      throw unauthorized('missing_permission', `This API key lacks the "${permission}" permission.`);
    }
    req.apiKey = { id: key.id, permissions: key.permissions };
  };
}
