// The metrics port's HTTP server (WAYPOST_METRICS_PORT, any role): only /healthz, /readyz and /metrics (no API, no
// console), so a load balancer never sends it traffic and Prometheus scrapes every process the same way.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import { installProblemHandler } from './problem.js';
import { opsRoutes } from './ops.js';

export async function buildOpsApp(core: Core): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: core.log as FastifyBaseLogger,
    // A scrape every few seconds is not worth a log line.
    logController: new LogController({ disableRequestLogging: true }),
  });
  installProblemHandler(app);
  await app.register(opsRoutes, { core, listener: 'metrics' });
  return app;
}
