// Health, readiness and Prometheus metrics.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Core } from '../core.js';

export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

export async function opsRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  app.get('/healthz', async () => ({ status: 'ok', version: core.config.version }));
  app.get('/readyz', async (_req, reply) => {
    try {
      await sql`SELECT 1`.execute(core.db);
      return { status: 'ready', database: core.store.dialect };
    } catch (err) {
      return reply.code(503).type('application/problem+json').send({ type: 'about:blank', title: 'Service Unavailable', status: 503, detail: `database unreachable: ${(err as Error).message}`, code: 'not_ready' });
    }
  });
  app.get('/metrics', async (_req, reply) => {
    reply.type(metricsRegistry.contentType);
    return metricsRegistry.metrics();
  });
}
