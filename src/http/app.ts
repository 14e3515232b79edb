// Builds the HTTP server: each capability registers its routes as a plugin under its prefix.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import { redactUrl } from '../log.js';
import { installProblemHandler } from './problem.js';
import { opsRoutes } from './ops.js';
import { installHttpMetrics } from './metrics.js';
import { hostRoutes } from '../host/routes.js';
import { apiRoutes } from '../api/routes.js';
import { adminRoutes } from '../admin/routes.js';
import { rootRedirect } from '../admin/console.js';

export async function buildApp(core: Core): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: core.log as FastifyBaseLogger,
    // We log one line per request ourselves, with credentials removed from the query string.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
  });
  app.addHook('onResponse', async (req, reply) => {
    req.log.info({ method: req.method, url: redactUrl(req.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
  });
  installProblemHandler(app);
  installHttpMetrics(app, core);
  await app.register(opsRoutes, { core });
  await app.register(hostRoutes, { core, prefix: '/host/v1' });
  await app.register(apiRoutes, { core });
  await app.register(adminRoutes, { core, prefix: '/admin' });
  await app.register(rootRedirect);
  return app;
}
