// The privacy doors over HTTP. Host API (host token; WordPress's *Erase/Export Personal Data* call these through the
// bridge): POST /host/v1/erasures, GET /host/v1/erasures/:id, POST /host/v1/exports. Admin API (the console):
// the same under /admin/api/privacy, with a preview of what an erasure takes and the list of past erasures. The
// person is named in the body, never in a URL: URLs reach logs and proxies.
import type { FastifyInstance } from 'fastify';
import { requestActor } from '../audit/record.js';
import type { Core } from '../core.js';
import {
  exportPerson, getErasure, listErasures, previewErasure, startErasure,
} from './index.js';

type IdParams = { Params: { id: string } };

export async function privacyHostRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  app.post('/erasures', async (req, reply) => {
    const erasure = await startErasure(core, req.body, requestActor(req));
    return reply.code(202).header('location', `/host/v1/erasures/${erasure.id}`).send(erasure);
  });
  app.get<IdParams>('/erasures/:id', async (req) => getErasure(core, req.params.id));
  app.post('/exports', async (req) => exportPerson(core, req.body, requestActor(req)));
}

export async function privacyAdminRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  app.post('/privacy/preview', async (req) => previewErasure(core, req.body));
  app.post('/privacy/erasures', async (req, reply) => {
    const erasure = await startErasure(core, req.body, requestActor(req));
    return reply.code(202).header('location', `/admin/api/privacy/erasures/${erasure.id}`).send(erasure);
  });
  app.get('/privacy/erasures', async () => ({ items: await listErasures(core) }));
  app.get<IdParams>('/privacy/erasures/:id', async (req) => getErasure(core, req.params.id));
  app.post('/privacy/exports', async (req) => exportPerson(core, req.body, requestActor(req)));
}
