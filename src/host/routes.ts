// Host API: PUT/DELETE {base}/host/v1/{resource}/{id}, bearer host token. A thin layer over src/host/write.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Core } from '../core.js';
import { unauthorized, invalidParameter, notFound } from '../errors.js';
import { RESOURCES, type Resource } from '../records/schemas.js';
import { isResource } from '../records/validate.js';
import { deleteRecord, putRecord } from './write.js';
import { ensureHostToken, tokenMatches } from './token.js';

const Params = Type.Object({ resource: Type.String(), id: Type.String() });

function parseParams(req: FastifyRequest): { resource: Resource; id: number } {
  const { resource, id } = req.params as { resource: string; id: string };
  if (!isResource(resource)) throw notFound(`Resource "${resource}" (expected one of ${RESOURCES.join(', ')})`);
  if (!/^[1-9]\d{0,15}$/.test(id) || !Number.isSafeInteger(Number(id))) throw invalidParameter('id', 'must be a positive integer');
  return { resource, id: Number(id) };
}

export async function hostRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  const token = await ensureHostToken(core);

  app.addHook('onRequest', async (req) => {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match) throw unauthorized('missing_host_token', 'Send the host token as "Authorization: Bearer <token>" (see `waypost host-token`).');
    if (!tokenMatches(match[1].trim(), token)) throw unauthorized('invalid_host_token', 'The host token is not valid.');
  });

  app.put('/:resource/:id', { schema: { params: Params } }, async (req, reply) => {
    const { resource, id } = parseParams(req);
    const result = await putRecord(core, resource, id, req.body);
    return reply.code(result.created ? 201 : 200).send({ created: result.created, changed: result.changed, record: result.record });
  });

  app.delete('/:resource/:id', { schema: { params: Params } }, async (req, reply) => {
    const { resource, id } = parseParams(req);
    const removed = await deleteRecord(core, resource, id);
    if (!removed) throw notFound(`${resource} ${id}`);
    return reply.code(204).send();
  });
}
