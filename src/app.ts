// The composition root: builds the HTTP server, and each capability registers its routes as a plugin under its
// prefix. It lives at src/ so that src/http/ (problem+json, ops routes, metrics) stays a leaf capabilities import.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Core } from './core.js';
import { redactUrl } from './log.js';
import { installProblemHandler } from './http/problem.js';
import { DEFAULT_BODY_LIMIT } from './http/body-limits.js';
import { opsRoutes } from './http/ops.js';
import { installHttpMetrics } from './http/metrics.js';
import { hostRoutes } from './host/routes.js';
import { apiRoutes } from './api/routes.js';
import { adminRoutes } from './admin/routes.js';
import { rootRedirect } from './admin/console.js';
import { signInLinkIssueRoutes } from './admin/sign-in-links.js';
import { installWordPressContact } from './admin/wordpress-contact.js';
import { privacyHostRoutes } from './privacy/routes.js';

export async function buildApp(core: Core): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: core.log as FastifyBaseLogger,
    // We log one line per request ourselves, with credentials removed from the query string.
    logController: new LogController({ disableRequestLogging: true }),
    // Each scope sets its own (host: src/host/routes.ts; API: none is read); this one is the admin API's and ops'.
    bodyLimit: DEFAULT_BODY_LIMIT,
  });
  app.addHook('onResponse', async (req, reply) => {
    const ms = Math.round(reply.elapsedTime);
    req.log.info({ method: req.method, url: redactUrl(req.url), status: reply.statusCode, ms }, 'request');
  });
  installProblemHandler(app);
  installHttpMetrics(app, core);
  // The WordPress site's last contact, for the console's Connect WordPress page (after the answer, never per write).
  installWordPressContact(app, core);
  await app.register(opsRoutes, { core, listener: 'api' });
  // The WordPress bridge asks for console sign-in links, erasures and exports with the host token: other capabilities'
  // routes, host's auth.
  await app.register(hostRoutes, { core, prefix: '/host/v1', more: [signInLinkIssueRoutes, privacyHostRoutes] });
  await app.register(apiRoutes, { core });
  await app.register(adminRoutes, { core, prefix: '/admin' });
  await app.register(rootRedirect);
  return app;
}
