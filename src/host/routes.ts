// Host API: PUT/DELETE {base}/host/v1/{resource}/{id}, POST /batch (many of those), bearer host token. A thin layer
// over src/host/write.ts and its neighbours. Routes other capabilities serve to the host (admin's POST /sign-in-links
// for the WordPress bridge's console sign-in) come in `more`, from src/app.ts, and sit behind the same token.
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Core } from '../core.js';
import { unauthorized, invalidParameter, notFound } from '../errors.js';
import { RESOURCES, type Resource } from '../records/schemas.js';
import { hostIdProblem, isResource } from '../records/validate.js';
import { deleteRecord, putRecord } from './write.js';
import { hostTokenCheck } from './token.js';
import { runBatch } from './batch.js';
import { guardJsonBodies, scopeBodyLimit, type JsonShapeLimits } from '../http/body-limits.js';
import { demoWarning } from './demo-guard.js';
import { inRequestSpan } from '../tracing/http.js';

// What the host may send (docs/security.md), sized from what the WordPress bridge really sends, measured with the
// bridge's own mapper and wp_json_encode on the WP Travel Engine fixtures: a booking operation is 580-650 bytes and
// 33 values; the largest is a review at the bridge's 20,000-character cap, 20,163 bytes (English text). 500 of those,
// the largest batch, are 10.1 MB (9.6 MiB): 12 MiB leaves 25% over it. Parsed, such a batch takes 10 MB of the 160
// MB heap `waypost serve` has (its text is read as a Buffer, outside the heap). Text in another script escapes to up
// to 6 bytes a character (Cyrillic: 104 KB a review): the bridge cuts batches at ~8 MB and halves one refused with 413.
export const BATCH_BODY_LIMIT = 12 * 1024 * 1024;
/** One record: ten times the largest real one (a 20,000-character review in Cyrillic is 104 KB once escaped). */
export const RECORD_BODY_LIMIT = 1024 * 1024;
/** Anything else under /host/v1: DELETE (no body), the sign-in-links request ({email, name, wp_user_id, site_url}). */
const HOST_BODY_LIMIT = 16 * 1024;
/**
 * The deepest record is a booking's line item, 8 levels down in a batch ({operations: [{data: {trips: [{line_items:
 * [{…}]}]}}]}); 500 bookings of the fixtures are 16,500 values, 500 reviews 5,000. Both checked before parsing, so a
 * body built to fill the heap (`[[],[],…]`, `[[[[…`) is refused for a pass over its bytes. The pass costs ~0.3 ms on
 * the 10 MB batch of reviews (strings are skipped with indexOf; JSON.parse: 16-38 ms) and ~0.4 ms on 500 bookings
 * (290 KB; JSON.parse: 1.5-4 ms), medians of 200 runs on a busy 2-core machine.
 */
export const HOST_JSON_LIMITS: JsonShapeLimits = { maxDepth: 10, maxValues: 250_000 };

const Params = Type.Object({ resource: Type.String(), id: Type.String() });

/** Path params; `anyId` admits the ids Waypost assigned (the host may delete such a customer, never PUT one). */
function parseParams(req: FastifyRequest, anyId = false): { resource: Resource; id: number } {
  const { resource, id } = req.params as { resource: string; id: string };
  if (!isResource(resource)) throw notFound(`Resource "${resource}" (expected one of ${RESOURCES.join(', ')})`);
  const n = Number(id);
  if (!/^[1-9]\d{0,15}$/.test(id) || !Number.isSafeInteger(n)) {
    throw invalidParameter('id', 'must be a positive integer');
  }
  const problem = anyId ? null : hostIdProblem(n);
  if (problem) throw invalidParameter('id', problem);
  return { resource, id: n };
}

export interface HostRoutesOptions {
  core: Core;
  /** More routes for the host, registered inside this scope so that the host token guards them too. */
  more?: FastifyPluginAsync<{ core: Core }>[];
}

export async function hostRoutes(app: FastifyInstance, opts: HostRoutesOptions): Promise<void> {
  const { core } = opts;
  // No token is made here: `waypost serve` or `waypost host-token` makes it, the only places that can show it.
  const hostTokenValid = hostTokenCheck(core);
  scopeBodyLimit(app, HOST_BODY_LIMIT);
  guardJsonBodies(app, HOST_JSON_LIMITS);

  app.addHook('onRequest', async (req) => {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match) {
      throw unauthorized(
        'missing_host_token',
        'Send the host token as "Authorization: Bearer <token>" (see `waypost host-token`).',
      );
    }
    const valid = await hostTokenValid(match[1].trim());
    if (!valid) throw unauthorized('invalid_host_token', 'The host token is not valid.');
  });

  // Each request is a span (tracing on), a child of the bridge's traceparent: the writes and outbox inserts nest in it.
  app.put('/:resource/:id', { schema: { params: Params }, bodyLimit: RECORD_BODY_LIMIT }, (req, reply) =>
    inRequestSpan(req, reply, async () => {
      const { resource, id } = parseParams(req);
      const result = await putRecord(core, resource, id, req.body);
      return reply
        .code(result.created ? 201 : 200)
        .send({ created: result.created, changed: result.changed, record: result.record });
    }));

  app.delete('/:resource/:id', { schema: { params: Params } }, (req, reply) => inRequestSpan(req, reply, async () => {
    const { resource, id } = parseParams(req, true);
    const removed = await deleteRecord(core, resource, id);
    if (!removed) throw notFound(`${resource} ${id}`);
    return reply.code(204).send();
  }));

  // Each operation is a single PUT/DELETE of its own (src/host/batch.ts): 200 with one result per operation.
  // Its answer warns of a demo here: the bridge's *Test connection* (an empty batch) shows it before a site connects.
  app.post('/batch', { bodyLimit: BATCH_BODY_LIMIT }, (req, reply) => inRequestSpan(req, reply, async () => {
    const results = await runBatch(core, req.body);
    return { results, ...await demoWarning(core.db) };
  }));

  for (const routes of opts.more ?? []) await app.register(routes, { core });
}
