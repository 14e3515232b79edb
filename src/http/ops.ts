// Health, readiness and Prometheus metrics.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Core } from '../core.js';
import { metricsOf } from '../metrics.js';
import { readinessDetails } from '../health.js';

/** A database that does not answer within this is not ready (a blackholed host would otherwise hang the probe). */
const DATABASE_CHECK_MS = 2_000;

/** Null when the database answers `SELECT 1` in time, else why not. */
async function databaseProblem(core: Core): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${DATABASE_CHECK_MS} ms`)), DATABASE_CHECK_MS);
  });
  try {
    await Promise.race([sql`SELECT 1`.execute(core.db), late]);
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    clearTimeout(timer);
  }
}

export async function opsRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  const metrics = metricsOf(core);
  metrics.gauge('waypost_database_up', 'Whether the database answered SELECT 1 at this scrape (1) or not (0)', [],
    async function collect() {
      this.set((await databaseProblem(core)) === null ? 1 : 0);
    });

  app.get('/healthz', async () => ({ status: 'ok', version: core.config.version }));
  // Ready means the database answers: without Redis the API still answers (cache bypassed, per-process rate
  // limits), so Redis is reported but does not take the process out of a load balancer.
  app.get('/readyz', async (_req, reply) => {
    const details = readinessDetails(core);
    const problem = await databaseProblem(core);
    if (problem === null) return { status: 'ready', database: core.store.dialect, ...details };
    return reply.code(503).type('application/problem+json').send({
      type: 'about:blank', title: 'Service Unavailable', status: 503, detail: `database unreachable: ${problem}`,
      code: 'not_ready', ...details,
    });
  });
  app.get('/metrics', async (_req, reply) => {
    reply.type(metrics.contentType);
    return metrics.scrape();
  });
}
