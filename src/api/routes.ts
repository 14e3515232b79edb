// Read-only REST API v1 under {restPrefix}/{namespace}/api/v1 (DESIGN.md "Read-only REST API v1"): four
// resources with list and detail, /test, the OpenAPI document and its rendered reference. One hook authenticates,
// checks the route's permission and rate-limits; answers go through the response cache.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { apiRoot } from '../config.js';
import type { Core } from '../core.js';
import { AppError, notFound } from '../errors.js';
import { sendProblem } from '../http/problem.js';
import { API_RESOURCES, type ApiResource } from '../records/schemas.js';
import { authenticate } from './auth.js';
import { apiServices } from './install.js';
import { paginationHeaders } from './links.js';
import { listRecords, readRecord } from './list.js';
import { registerOpenApi, SECURITY } from './openapi.js';
import { answerFromCache, cachedAnswer, uncachedAnswer } from './respond.js';
import { DetailParams, LIST_QUERIES, NoQuery, ProblemSchema, RECORD_SCHEMAS, TestAnswer, type ListQuery } from './schemas.js';
import { apiValidatorCompiler } from './validation.js';

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: Type.Ref('Problem') } } });
const ERRORS = {
  400: problem('Invalid parameter (the problem names it in `parameter`)'),
  401: problem('Missing, unknown, wrong or disabled credentials, or a missing permission'),
  429: problem('Rate limit reached; see Retry-After'),
};

export async function apiRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  const root = apiRoot(core.config);
  const services = apiServices(core);

  await app.register(async (api) => {
    api.setValidatorCompiler(apiValidatorCompiler);
    api.addSchema(ProblemSchema);
    for (const schema of Object.values(RECORD_SCHEMAS)) api.addSchema(schema);
    await registerOpenApi(api, core);

    const auth = authenticate(core, services);
    api.addHook('onRequest', async (req, reply) => {
      await auth(req, reply);
      const resource = req.routeOptions.config?.apiResource;
      if (resource && req.apiKey) return answerFromCache(services, req, reply, resource);
      return undefined;
    });
    api.addHook('onResponse', async (req, reply) => {
      if (req.apiKeyId) services.usage.record(req.apiKeyId, reply.statusCode);
    });
    // The API is read-only: any other method on an API path is 405, whatever the path.
    api.setNotFoundHandler((req, reply) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        reply.header('Allow', 'GET, HEAD');
        return sendProblem(reply, new AppError(405, 'method_not_allowed', 'Method Not Allowed', `The REST API is read-only: ${req.method} is not allowed (use GET or HEAD).`));
      }
      return sendProblem(reply, new AppError(404, 'not_found', 'Not Found', `No API endpoint at ${req.url.split('?')[0]}`));
    });

    api.get('/test', {
      config: { apiPermission: '*' },
      schema: { tags: ['keys'], summary: 'Check credentials', description: 'Any active key; answers its id and permissions.', security: SECURITY, querystring: NoQuery, response: { 200: TestAnswer, ...ERRORS } },
    }, async (req, reply) => uncachedAnswer(req, reply, { ok: true, key: req.apiKey!.id, permissions: req.apiKey!.permissions }));

    for (const resource of API_RESOURCES) registerResource(api, core, resource);
  }, { prefix: root });

  function registerResource(api: FastifyInstance, core: Core, resource: ApiResource): void {
    const ref = Type.Ref(RECORD_SCHEMAS[resource].$id as string);
    const listUrl = `${core.config.baseUrl}${root}/${resource}`;
    const pageHeaders = {
      'X-Total-Count': { schema: { type: 'integer' }, description: 'Records matching the filters' },
      'X-Total-Pages': { schema: { type: 'integer' }, description: 'Pages at this perpage' },
      Link: { schema: { type: 'string' }, description: 'RFC 8288 links: next, prev, first, last' },
      ETag: { schema: { type: 'string' } },
      'X-Cache': { schema: { type: 'string', enum: ['HIT', 'MISS'] } },
    };

    api.get(`/${resource}`, {
      config: { apiPermission: `${resource}.list`, apiResource: resource },
      schema: {
        tags: [resource], summary: `List ${resource}`, security: SECURITY, querystring: LIST_QUERIES[resource],
        response: { 200: { description: 'A JSON array', headers: pageHeaders, content: { 'application/json': { schema: Type.Array(ref) } } }, 304: { description: 'Not modified (If-None-Match)', type: 'null' }, ...ERRORS },
      },
    }, async (req, reply) => cachedAnswer(core, services, req, reply, resource, async () => {
      const query = req.query as ListQuery;
      const page = await listRecords(core, resource, query);
      return { payload: page.items, headers: paginationHeaders(listUrl, query as Record<string, unknown>, page) };
    }));

    api.get(`/${resource}/:id`, {
      config: { apiPermission: `${resource}.read`, apiResource: resource },
      schema: {
        tags: [resource], summary: `Get one of ${resource}`, security: SECURITY, params: DetailParams, querystring: NoQuery,
        response: { 200: { description: 'The record', content: { 'application/json': { schema: ref } } }, 304: { description: 'Not modified (If-None-Match)', type: 'null' }, ...ERRORS, 404: problem('No such record') },
      },
    }, async (req, reply) => cachedAnswer(core, services, req, reply, resource, async () => {
      const id = Number((req.params as { id: string }).id);
      const record = await readRecord(core, resource, id);
      if (!record) throw notFound(`${resource.slice(0, -1)} ${id}`);
      return { payload: record };
    }));
  }
}
