// Answers a GET from the response cache or computes it: serialise through the route's response schema, hash the
// body into a strong ETag, compress it (compression.ts), store it, and honour If-None-Match with 304.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Core } from '../core.js';
import type { ApiResource } from '../records/schemas.js';
import type { CacheLookup, CachedResponse } from './cache.js';
import type { ApiServices } from './install.js';
import { compress, etagFor, matchesAnyEncoding, negotiate } from './compression.js';

export const etagOf = (body: string) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

declare module 'fastify' {
  interface FastifyRequest {
    /** The response-cache lookup made before validation (see answerFromCache), for cachedAnswer to store under. */
    apiCache?: { key: string; generation: number };
  }
}

/**
 * Path plus the parsed query's `[name, value]` pairs, sorted by name and serialised as JSON, taken before validation
 * (credentials were already removed, so they never reach a cache key). JSON keeps the key injective: a decoded value
 * holding `&` or `=` (`email=a%40b.c%26order%3Dasc`) cannot spell another query (`email=a@b.c&order=asc`) and so
 * cannot poison its entry. The same parsed query always validates to the same answer, so a hit can be served
 * without validating again.
 */
export function cacheKeyOf(req: FastifyRequest): string {
  const url = req.url;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const query = (req.query ?? {}) as Record<string, unknown>;
  const keys = Object.keys(query);
  if (keys.length === 0) return path;
  keys.sort();
  return `${path}?${JSON.stringify(keys.map((k) => [k, query[k]]))}`;
}

function send(
  req: FastifyRequest, reply: FastifyReply, entry: CachedResponse, cache: 'HIT' | 'MISS' | null,
): FastifyReply {
  reply.headers(entry.headers);
  const wanted = negotiate(req.headers['accept-encoding']);
  const encoding = wanted && entry[wanted] ? wanted : null;
  reply.header('ETag', etagFor(entry.etag, encoding));
  reply.header('Vary', 'Accept-Encoding');
  reply.header('Cache-Control', 'private, no-cache');
  if (cache) reply.header('X-Cache', cache);
  if (matchesAnyEncoding(req.headers['if-none-match'], entry.etag)) return reply.code(304).send();
  reply.type('application/json; charset=utf-8');
  return encoding ? reply.header('Content-Encoding', encoding).send(entry[encoding]) : reply.send(entry.body);
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

/** Compresses into the encoding this client takes only: for an answer that is not kept. */
async function forThisClient(req: FastifyRequest, body: string): Promise<CachedResponse> {
  const wanted = negotiate(req.headers['accept-encoding']);
  return { body, etag: etagOf(body), headers: {}, ...(wanted && await compress(body, [wanted])) };
}

/** An answer that is not cached (per-key, like /test) but still has an ETag and honours If-None-Match. */
export async function uncachedAnswer(
  req: FastifyRequest, reply: FastifyReply, payload: unknown,
): Promise<FastifyReply> {
  return send(req, reply, await forThisClient(req, serialized(req, reply, payload)), null);
}

export type KeyedLookup = CacheLookup & { key: string };

/**
 * Starts the response-cache lookup of a request whose credentials were taken out of its query, so that it goes
 * out with authentication's own round trip (src/api/routes.ts); it is used only if the request passes.
 */
export function lookUp(services: ApiServices, req: FastifyRequest, resource: ApiResource): Promise<KeyedLookup> {
  const key = cacheKeyOf(req);
  const pending = services.cache.get(resource, key).then((found) => ({ ...found, key }));
  pending.catch(() => {}); // awaited (and a failure reported) only if authentication passes
  return pending;
}

/**
 * Runs right after authentication (onRequest), before the query is validated: a cached answer is sent from here,
 * so a hit costs no validation and no handler. Otherwise the lookup is kept for cachedAnswer.
 */
export function answerFromCache(
  services: ApiServices, req: FastifyRequest, reply: FastifyReply, resource: ApiResource, lookup: KeyedLookup,
): FastifyReply | undefined {
  services.cache.used(resource, lookup);
  const { entry, generation, key } = lookup;
  if (entry) return send(req, reply, entry, 'HIT');
  req.apiCache = { key, generation };
  return undefined;
}

/** Computes an answer that answerFromCache did not find, sends it and stores it. */
export async function cachedAnswer(
  core: Core, services: ApiServices, req: FastifyRequest, reply: FastifyReply, resource: ApiResource,
  compute: () => Promise<Computed>,
): Promise<FastifyReply> {
  const lookup = req.apiCache;
  if (!lookup) {
    throw new Error(`cachedAnswer on ${req.routeOptions.url} without a lookup (the route needs config.apiResource)`);
  }
  const { key, generation } = lookup;
  const { payload, headers = {} } = await compute();
  const body = serialized(req, reply, payload);
  // Kept answers are compressed in both encodings now, so that no hit has to; with the cache off, only in this
  // client's.
  if (core.config.cacheTtlS <= 0) return send(req, reply, { ...(await forThisClient(req, body)), headers }, 'MISS');
  const fresh: CachedResponse = { body, etag: etagOf(body), headers, ...(await compress(body)) };
  // Storing is not on the answer's path; a failed store only costs a later miss.
  services.cache.set(resource, key, generation, fresh, core.config.cacheTtlS)
    .catch((err) => core.log.warn({ err }, 'cache store failed'));
  return send(req, reply, fresh, 'MISS');
}
