// Host API: PUT/DELETE {base}/host/v1/{resource}/{id}, POST /batch (many of those), bearer host token. A thin layer
// over src/host/write.ts and its neighbours. Routes other capabilities serve to the host (admin's POST /sign-in-links
// for the WordPress bridge's console sign-in) come in `more`, from src/app.ts, and sit behind the same token.
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Core } from '../core.js';
import { unauthorized, invalidParameter, notFound } from '../errors.js';
import { RESOURCES, type Resource } from '../records/schemas.js';
import { hostIdProblem, isResource } from '../records/validate.js';
import { deleteRecord, putRecord } from './write.js';
import { hostTokenCheck } from './token.js';
import { runBatch } from './batch.js';
import { demoWarning } from './demo-guard.js';

// 500 full bookings are more than the server's 1 MiB default; each record is still checked by its schema.
const BATCH_BODY_LIMIT = 16 * 1024 * 1024;

const Params = Type.Object({ resource: Type.String(), id: Type.String() });

/** Path params; `anyId` admits the ids Waypost assigned (the host may delete such a customer, never PUT one). */
function parseParams(req: FastifyRequest, anyId = false): { resource: Resource; id: number } {
  const { resource, id } = req.params as { resource: string; id: string };
  if (!isResource(resource)) throw notFound(`Resource "${resource}" (expected one of ${RESOURCES.join(', ')})`);
  const n = Number(id);
  if (!/^[1-9]\d{0,15}$/.test(id) || !Number.isSafeInteger(n)) {
    throw invalidParameter('id', 'must be a positive integer');
  }
  const problem = anyId ? null : hostIdProblem(n);
  if (problem) throw invalidParameter('id', problem);
  return { resource, id: n };
}

export interface HostRoutesOptions {
  core: Core;
  /** More routes for the host, registered inside this scope so that the host token guards them too. */
  more?: FastifyPluginAsync<{ core: Core }>[];
}

export async function hostRoutes(app: FastifyInstance, opts: HostRoutesOptions): Promise<void> {
  const { core } = opts;
  // No token is made here: `waypost serve` or `waypost host-token` makes it, the only places that can show it.
  const hostTokenValid = hostTokenCheck(core);

  app.addHook('onRequest', async (req) => {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match) {
      throw unauthorized(
        'missing_host_token',
        'Send the host token as "Authorization: Bearer <token>" (see `waypost host-token`).',
      );
    }
    const valid = await hostTokenValid(match[1].trim());
    if (!valid) throw unauthorized('invalid_host_token', 'The host token is not valid.');
  });

  app.put('/:resource/:id', { schema: { params: Params } }, async (req, reply) => {
    const { resource, id } = parseParams(req);
    const result = await putRecord(core, resource, id, req.body);
    return reply
      .code(result.created ? 201 : 200)
      .send({ created: result.created, changed: result.changed, record: result.record });
  });

  app.delete('/:resource/:id', { schema: { params: Params } }, async (req, reply) => {
    const { resource, id } = parseParams(req, true);
    const removed = await deleteRecord(core, resource, id);
    if (!removed) throw notFound(`${resource} ${id}`);
    return reply.code(204).send();
  });

  // Each operation is a single PUT/DELETE of its own (src/host/batch.ts): 200 with one result per operation.
  // Its answer warns of a demo here: the bridge's *Test connection* (an empty batch) shows it before a site connects.
  app.post('/batch', { bodyLimit: BATCH_BODY_LIMIT }, async (req) => {
    const results = await runBatch(core, req.body);
    return { results, ...await demoWarning(core.db) };
  });

  for (const routes of opts.more ?? []) await app.register(routes, { core });
}
