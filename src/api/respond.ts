// Answers a GET from the response cache or computes it: serialise through the route's response schema, hash the
// body into a strong ETag, store it, and honour If-None-Match with 304.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Core } from '../core.js';
import type { ApiResource } from '../records/schemas.js';
import type { CachedResponse } from './cache.js';
import type { ApiServices } from './install.js';

export const etagOf = (body: string) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/** Path plus the validated query with sorted keys (credentials were already removed): never the credentials. */
export function cacheKeyOf(req: FastifyRequest): string {
  const path = req.url.split('?')[0];
  const query = (req.query ?? {}) as Record<string, unknown>;
  const keys = Object.keys(query).filter((k) => query[k] !== undefined).sort();
  return `${path}?${keys.map((k) => `${k}=${String(query[k])}`).join('&')}`;
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

function send(req: FastifyRequest, reply: FastifyReply, entry: CachedResponse, cache: 'HIT' | 'MISS' | null): FastifyReply {
  reply.headers(entry.headers);
  reply.header('ETag', entry.etag);
  reply.header('Cache-Control', 'private, no-cache');
  if (cache) reply.header('X-Cache', cache);
  if (matches(req.headers['if-none-match'], entry.etag)) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(entry.body);
}

export interface Computed {
  payload: unknown;
  headers?: Record<string, string>;
}

function serialized(req: FastifyRequest, reply: FastifyReply, payload: unknown): string {
  // The route's 200 schema decides what is sent: nothing leaks that it does not name.
  const serialize = reply.getSerializationFunction('200', 'application/json') ?? reply.getSerializationFunction('200');
  if (!serialize) throw new Error(`no 200 response schema for ${req.routeOptions.url}`);
  return serialize(payload as Record<string, unknown>);
}

/** An answer that is not cached (per-key, like /test) but still has an ETag and honours If-None-Match. */
export function uncachedAnswer(req: FastifyRequest, reply: FastifyReply, payload: unknown): FastifyReply {
  const body = serialized(req, reply, payload);
  return send(req, reply, { body, etag: etagOf(body), headers: {} }, null);
}

export async function cachedAnswer(core: Core, services: ApiServices, req: FastifyRequest, reply: FastifyReply, resource: ApiResource, compute: () => Promise<Computed>): Promise<FastifyReply> {
  const key = cacheKeyOf(req);
  const { entry, generation } = await services.cache.get(resource, key);
  if (entry) return send(req, reply, entry, 'HIT');
  const { payload, headers = {} } = await compute();
  const body = serialized(req, reply, payload);
  const fresh: CachedResponse = { body, etag: etagOf(body), headers };
  // Storing is not on the answer's path; a failed store only costs a later miss.
  if (core.config.cacheTtlS > 0) {
    services.cache.set(resource, key, generation, fresh, core.config.cacheTtlS).catch((err) => core.log.warn({ err }, 'cache store failed'));
  }
  return send(req, reply, fresh, 'MISS');
}
