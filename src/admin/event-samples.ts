// GET /admin/api/events/:type/sample: the envelope an event of that type is delivered in, with the sample record
// `webhooks test` sends, so the console can show each event's payload next to its checkbox. Registered beside the
// webhook routes (src/webhooks/samples.ts owns the samples); data only, nothing is sent.
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import { notFound } from '../errors.js';
import { isEventType } from '../webhooks/catalog.js';
import { sampleEnvelope } from '../webhooks/samples.js';

export async function eventSampleRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  app.get<{ Params: { type: string } }>('/events/:type/sample', async (req) => {
    if (!isEventType(req.params.type)) throw notFound(`Event type ${JSON.stringify(req.params.type)}`);
    return sampleEnvelope(req.params.type, core.clock.now());
  });
}
