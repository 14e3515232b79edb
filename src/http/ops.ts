// Health, readiness and Prometheus metrics. /metrics tells more than an outsider should know (routes and their
// traffic, webhook ids, queue depth, memory): on the API's port it answers only with WAYPOST_METRICS_TOKEN; the
// metrics port (WAYPOST_METRICS_PORT, kept off the public network) needs the token only when one is set.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Core } from '../core.js';
import { AppError, unauthorized } from '../errors.js';
import { metricsOf } from '../metrics.js';
import { readinessDetails } from '../health.js';
import { tokenMatches } from '../tokens.js';

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

/** Which server the ops routes are part of: the API's (PORT) or the metrics port's. */
export type OpsListener = 'api' | 'metrics';

/** Refuses a scrape without the metrics token (or, on the API's port, any scrape when no token is set). */
function metricsAccess(core: Core, listener: OpsListener): (req: FastifyRequest) => Promise<void> {
  const token = core.config.metricsToken;
  return async (req) => {
    if (token === null) {
      if (listener === 'metrics') return;
      throw new AppError(404, 'metrics_not_public', 'Not Found', 'the API port serves /metrics only with a token: '
        + 'scrape WAYPOST_METRICS_PORT, or set WAYPOST_METRICS_TOKEN and send "Authorization: Bearer <token>"');
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (bearer === undefined || !tokenMatches(bearer, token)) {
      throw unauthorized('metrics_token_required',
        'Send the metrics token (WAYPOST_METRICS_TOKEN) as "Authorization: Bearer <token>".');
    }
  };
}

export async function opsRoutes(app: FastifyInstance, opts: { core: Core; listener: OpsListener }): Promise<void> {
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
  app.get('/metrics', { onRequest: metricsAccess(core, opts.listener) }, async (_req, reply) => {
    reply.type(metrics.contentType);
    return metrics.scrape();
  });
}
