// Request metrics for every HTTP route: counts by route pattern (never the raw URL, whose ids and query strings
// would make a series per request) and status, a duration histogram, and the REST API's rate-limit refusals.
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import { metricsOf } from '../metrics.js';

export function installHttpMetrics(app: FastifyInstance, core: Core): void {
  const metrics = metricsOf(core);
  const requests = metrics.counter('waypost_http_requests_total', 'HTTP requests answered, by route pattern and status',
    ['method', 'route', 'status']);
  const duration = metrics.histogram('waypost_http_request_duration_seconds',
    'Time from receiving a request to sending its answer, by route pattern', ['method', 'route']);
  const rateLimited = metrics.counter('waypost_api_rate_limited_total',
    'REST API requests refused with 429, by policy (default: the per-key limit; failed-auth: per client address)',
    ['policy']);
  for (const policy of ['default', 'failed-auth']) rateLimited.inc({ policy }, 0); // series exist before the first 429
  app.addHook('onResponse', async (req, reply) => {
    // No route matched (404): one series for all of them.
    const route = req.routeOptions.url ?? 'unmatched';
    const status = String(reply.statusCode);
    requests.inc({ method: req.method, route, status });
    duration.observe({ method: req.method, route }, reply.elapsedTime / 1000);
    if (reply.statusCode === 429) {
      const policy = /^"([^"]+)"/.exec(String(reply.getHeader('ratelimit-policy') ?? ''))?.[1] ?? 'default';
      rateLimited.inc({ policy });
    }
  });
}
