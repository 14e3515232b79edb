// A worker's HTTP server: only /healthz, /readyz and /metrics (no API, no console), so a load balancer never sends
// it traffic and Prometheus can scrape every worker like every API process.
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
  await app.register(opsRoutes, { core });
  return app;
}
