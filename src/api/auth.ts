// API key authentication, permissions and rate limiting, applied by one hook to every route whose config names a
// permission (`config: { apiPermission: 'bookings.list' }`, or '*' for any active key).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Core } from '../core.js';
import type { ApiResource } from '../records/schemas.js';
import { tooManyRequests, unauthorized } from '../errors.js';
import type { KnownKey } from './key-lookup.js';
import { secretMatches } from '../tokens.js';
import type { ApiServices } from './install.js';
import { ietfRateLimitHeaders, type WindowCount } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    apiPermission?: string;
    /** Answers of this route go through the response cache, under this resource. */
    apiResource?: ApiResource;
    /** The REST API's one write (POST /events/ack): not answered 405 like every other non-GET method. */
    apiWrite?: boolean;
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

  const touchLastUsed = (id: string, lastUsedAt: string | null, now: number) => {
    const last = lastUsedWrites.get(id) ?? (lastUsedAt ? Date.parse(lastUsedAt) : 0);
    if (now - last < LAST_USED_EVERY_MS) return;
    lastUsedWrites.set(id, now);
    core.db.updateTable('api_keys').set({ last_used_at: new Date(now).toISOString() }).where('id', '=', id).execute()
      .catch((err) => core.log.warn({ err }, 'could not record last_used_at'));
  };

  /** Why the credentials fail, or null when they are right. */
  const failure = (token: string | undefined, secret: string | undefined, key: KnownKey | undefined) => {
    if (!token || !secret) {
      const hint = 'Send your API key and secret in the Access-Token and Access-Secret headers.';
      return unauthorized('missing_credentials', hint);
    }
    if (!key) return unauthorized('unknown_key', 'No API key matches this Access-Token.');
    if (!secretMatches(secret, key.secretHash)) {
      return unauthorized('invalid_secret', 'The Access-Secret does not match this API key.');
    }
    if (!key.active) {
      return unauthorized('key_disabled', 'This API key is disabled; an administrator can re-enable it.');
    }
    return null;
  };

  /** `meanwhile` runs once the credentials are out of the query, to overlap with the limits' round trip. */
  return async (req: FastifyRequest, reply: FastifyReply, meanwhile?: () => void): Promise<void> => {
    const permission = req.routeOptions.config?.apiPermission;
    if (!permission) return;
    services.foreignWrites.poll(); // before anything held in memory (keys, cached answers) is trusted
    const now = core.clock.now();
    const { token, secret } = takeCredentials(req, reply);
    // The key first (held in memory; else one indexed read), so that the limits below take one round trip.
    const named = token && secret && token.length <= 200 && !token.includes('\0');
    const key = named ? await services.keys.find(token) : undefined;
    if (key) req.apiKeyId = key.id;
    const wrong = failure(token, secret, key);
    const good = wrong ? null : key!; // no failure: the key was found

    // One atomic decision, shared by every process through Redis: an address at its limit of failed attempts is
    // refused unchecked (even with good credentials, so guessing cannot continue; not counted, so a client that
    // keeps calling is not locked out for longer); otherwise a failure counts against the address, a success
    // against its key. At most the limit of failures per window get an answer other than 429.
    const admitting = services.limiter.admit({
      attempts: `authfail:${req.ip}`, attemptLimit: config.authFailLimit, key: good && `key:${good.id}`,
      windowMs, now,
    });
    if (good) meanwhile?.();
    const verdict = await admitting;
    if (verdict.refused || !good) {
      const retry = setRateLimitHeaders(reply, config.authFailLimit, windowS, verdict.attempts, now, 'failed-auth');
      if (!verdict.refused) throw wrong;
      throw tooManyRequests(
        `Too many failed authentications from this address; try again in ${retry} s.`,
        Math.max(1, retry),
      );
    }

    const limit = good.rateLimit ?? config.rateLimit;
    const used = verdict.used!;
    const retry = setRateLimitHeaders(reply, limit, windowS, used, now);
    touchLastUsed(good.id, good.lastUsedAt, now);
    if (used.count > limit) {
      throw tooManyRequests(
        `Rate limit of ${limit} requests per ${windowS} s reached; try again in ${retry} s.`,
        Math.max(1, retry),
      );
    }

    if (permission !== '*' && !good.permissions.includes(permission)) {
      throw unauthorized('missing_permission', `This API key lacks the "${permission}" permission.`);
    }
    req.apiKey = { id: good.id, permissions: good.permissions };
  };
}
