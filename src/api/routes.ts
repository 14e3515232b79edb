// Read-only REST API v1 under {restPrefix}/{namespace}/api/v1 (DESIGN.md "Read-only REST API v1"): four
// resources with list and detail, /test, the OpenAPI document and its rendered reference. One hook authenticates,
// checks the route's permission and rate-limits; answers go through the response cache.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { apiRoot } from '../config.js';
import type { Core } from '../core.js';
import { AppError, notFound } from '../errors.js';
import { sendProblem } from '../http/problem.js';
import { scopeBodyLimit } from '../http/body-limits.js';
import { API_RESOURCES, type ApiResource } from '../records/schemas.js';
import { authenticate } from './auth.js';
import { registerEventFeed } from './events-routes.js';
import { apiServices } from './install.js';
import { paginationHeaders } from './links.js';
import { listRecords, readRecord } from './list.js';
import { ALLOW, registerOpenApi, SECURITY } from './openapi.js';
import { registerPostman } from './postman.js';
import { answerFromCache, cachedAnswer, lookUp, uncachedAnswer, type KeyedLookup } from './respond.js';
import {
  DetailParams, LIST_QUERIES, NoQuery, ProblemSchema, RECORD_SCHEMAS, TestAnswer, type ListQuery,
} from './schemas.js';
import { apiValidatorCompiler } from './validation.js';
import { installRequestSpans } from '../tracing/http.js';

const problem = (description: string) => ({
  description, content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
});
const ERRORS = {
  400: problem('Invalid parameter (the problem names it in `parameter`)'),
  401: problem('Missing, unknown, wrong or disabled credentials, or a missing permission'),
  429: problem('Rate limit reached; see Retry-After'),
  503: problem('The database is unreachable for a moment (a failover, a restart); retry after Retry-After'),
};
// Response headers as @fastify/swagger takes them (one JSON schema each, its description lifted to the header).
const ETAG = { type: 'string', description: 'Strong validator of the body: send it back in If-None-Match to get 304' };
const CACHE_CONTROL = { type: 'string', const: 'private, no-cache', description: 'Revalidate with If-None-Match' };
const X_CACHE = { type: 'string', enum: ['HIT', 'MISS'], description: 'Whether the server-side cache answered' };
const answerHeaders = (cached: boolean) => ({
  ETag: ETAG, 'Cache-Control': CACHE_CONTROL, ...(cached ? { 'X-Cache': X_CACHE } : {}),
});
const notModified = (cached: boolean) => ({
  description: 'Not Modified: If-None-Match names the current ETag', type: 'null', headers: answerHeaders(cached),
});

export async function apiRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  const root = apiRoot(core.config);
  const services = apiServices(core);

  await app.register(async (api) => {
    // Read-only: a body is never read (other methods are answered 405 below, before parsing).
    scopeBodyLimit(api, 1024);
    api.setValidatorCompiler(apiValidatorCompiler);
    api.addSchema(ProblemSchema);
    for (const schema of Object.values(RECORD_SCHEMAS)) api.addSchema(schema);
    await registerOpenApi(api, core);
    registerPostman(api, core);

    // A span per request (tracing on), from before authentication to the answer, with the cache's outcome.
    installRequestSpans(api, (_req, reply): Record<string, string> => {
      const cache = reply.getHeader('x-cache');
      return typeof cache === 'string' ? { 'waypost.cache': cache.toLowerCase() } : {};
    });

    // The API is read-only: any other method on an API path is 405, whatever the path. Answered first, before the
    // credentials are checked or a body is read (a broken or empty JSON body must not turn it into a 400).
    api.addHook('onRequest', async (req, reply) => {
      if (req.method === 'GET' || req.method === 'HEAD' || req.routeOptions.config?.apiWrite) return undefined;
      reply.header('Allow', ALLOW);
      const detail = `The REST API is read-only: ${req.method} is not allowed (use GET or HEAD).`;
      return sendProblem(reply, new AppError(405, 'method_not_allowed', 'Method Not Allowed', detail));
    });
    const auth = authenticate(core, services);
    api.addHook('onRequest', async (req, reply) => {
      const resource = req.routeOptions.config?.apiResource;
      if (!resource) return auth(req, reply);
      // The cache lookup goes out beside authentication's own round trip, and is used once the request passed.
      let lookup: Promise<KeyedLookup> | undefined;
      await auth(req, reply, () => { lookup = lookUp(services, req, resource); });
      if (lookup && req.apiKey) return answerFromCache(services, req, reply, resource, await lookup);
      return undefined;
    });
    api.addHook('onResponse', async (req, reply) => {
      if (req.apiKeyId) services.usage.record(req.apiKeyId, reply.statusCode);
    });
    api.setNotFoundHandler((req, reply) => {
      const path = req.url.split('?')[0];
      return sendProblem(reply, new AppError(404, 'not_found', 'Not Found', `No API endpoint at ${path}`));
    });

    api.get('/test', {
      config: { apiPermission: '*' },
      schema: {
        tags: ['keys'], summary: 'Check your credentials', operationId: 'test',
        description: 'Any active key; answers its id and permissions.', security: SECURITY, querystring: NoQuery,
        response: {
          200: { ...TestAnswer, description: 'The key is active', headers: answerHeaders(false) },
          304: notModified(false), ...ERRORS,
        },
      },
    }, async (req, reply) =>
      uncachedAnswer(req, reply, { ok: true, key: req.apiKey!.id, permissions: req.apiKey!.permissions }));

    for (const resource of API_RESOURCES) registerResource(api, core, resource);
    registerEventFeed(api, core, root, ERRORS);
  }, { prefix: root });

  function registerResource(api: FastifyInstance, core: Core, resource: ApiResource): void {
    const ref = Type.Ref(RECORD_SCHEMAS[resource].$id as string);
    const listUrl = `${core.config.baseUrl}${root}/${resource}`;
    const pageHeaders = {
      'X-Total-Count': {
        type: 'integer',
        description: 'Records matching the filters. Always sent with no filter or status alone (maintained counters); '
          + 'with other filters only when at most 1,000 records pass the narrowest one (for search: hold the '
          + 'search), else left out (follow next)',
      },
      'X-Total-Pages': { type: 'integer', description: 'Pages at this perpage; sent together with X-Total-Count' },
      Link: { type: 'string', description: 'RFC 8288 links: next, prev, first, last' },
      ...answerHeaders(true),
    };
    // "List bookings", "Get a booking"; operation ids listBookings, getBooking.
    const [plural, one] = [resource, `a ${resource.slice(0, -1)}`];
    const name = resource.charAt(0).toUpperCase() + resource.slice(1);

    api.get(`/${resource}`, {
      config: { apiPermission: `${resource}.list`, apiResource: resource },
      schema: {
        tags: [resource], summary: `List ${plural}`, operationId: `list${name}`, security: SECURITY,
        querystring: LIST_QUERIES[resource],
        response: {
          200: {
            description: 'A JSON array', headers: pageHeaders,
            content: { 'application/json': { schema: Type.Array(ref) } },
          },
          304: notModified(true), ...ERRORS,
        },
      },
    }, async (req, reply) => cachedAnswer(core, services, req, reply, resource, async () => {
      const query = req.query as ListQuery;
      const page = await listRecords(core, resource, query);
      return { payload: page.items, headers: paginationHeaders(listUrl, query as Record<string, unknown>, page) };
    }));

    api.get(`/${resource}/:id`, {
      config: { apiPermission: `${resource}.read`, apiResource: resource },
      schema: {
        tags: [resource], summary: `Get ${one}`, operationId: `get${name.slice(0, -1)}`, security: SECURITY,
        params: DetailParams, querystring: NoQuery,
        response: {
          200: {
            description: 'The record', headers: answerHeaders(true), content: { 'application/json': { schema: ref } },
          },
          304: notModified(true), ...ERRORS, 404: problem('No such record (a legacy booking is absent too)'),
        },
      },
    }, async (req, reply) => cachedAnswer(core, services, req, reply, resource, async () => {
      const id = Number((req.params as { id: string }).id);
      const record = await readRecord(core, resource, id);
      if (!record) throw notFound(`${resource.slice(0, -1)} ${id}`);
      return { payload: record };
    }));
  }
}
