// Server spans for HTTP requests (OpenTelemetry's HTTP conventions), each a child of the request's W3C
// `traceparent` when it carries one (the WordPress bridge sends one per request). Two shapes: around a handler, so
// that what it awaits (the write, the outbox insert) nests under it; or from the first hook to the response, for
// routes whose answer may come from a hook (the REST API's cache).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { tracing, type SpanHandle, type SpanOptions } from './index.js';

type Attributes = Record<string, string | number | boolean>;

function start(req: FastifyRequest): { name: string; options: SpanOptions } {
  const route = req.routeOptions.url ?? req.url.split('?')[0];
  const header = req.headers.traceparent;
  return {
    name: `${req.method} ${route}`,
    options: {
      kind: 'server',
      parent: typeof header === 'string' ? header : null,
      attributes: { 'http.request.method': req.method, 'http.route': route, 'url.path': req.url.split('?')[0] },
    },
  };
}

/** Runs a route's handler in its request's span (no span, and no other cost, when tracing is off). */
export async function inRequestSpan<T>(req: FastifyRequest, reply: FastifyReply, fn: () => Promise<T>): Promise<T> {
  const traced = tracing();
  if (!traced) return fn();
  const { name, options } = start(req);
  return traced.span(name, options, async (span) => {
    try {
      const out = await fn();
      span.setAttributes({ 'http.response.status_code': reply.statusCode });
      return out;
    } catch (err) {
      const status = (err as { status?: unknown }).status;
      span.setAttributes({ 'http.response.status_code': typeof status === 'number' ? status : 500 });
      throw err;
    }
  });
}

const spans = new WeakMap<FastifyRequest, SpanHandle & { end(): void }>();

/**
 * A span per request of this scope, from its first hook to its response; `finish` adds attributes known at the end.
 * Registers nothing when tracing is off.
 */
export function installRequestSpans(
  app: FastifyInstance, finish: (req: FastifyRequest, reply: FastifyReply) => Attributes,
): void {
  const traced = tracing();
  if (!traced) return;
  app.addHook('onRequest', async (req) => {
    const { name, options } = start(req);
    spans.set(req, traced.start(name, options));
  });
  app.addHook('onResponse', async (req, reply) => {
    const span = spans.get(req);
    if (!span) return;
    span.setAttributes({ 'http.response.status_code': reply.statusCode, ...finish(req, reply) });
    if (reply.statusCode >= 500) span.fail(`HTTP ${reply.statusCode}`);
    span.end();
  });
}
