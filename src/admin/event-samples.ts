// GET /admin/api/events/:type/sample: the envelope an event of that type is delivered in, with the sample record
// `webhooks test` sends (or its minimal payload), so the console can show each event's payload next to its checkbox.
// Registered beside the webhook routes (src/webhooks/samples.ts owns the samples); data only, nothing is sent.
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import { invalidParameter, notFound } from '../errors.js';
import { isEventType } from '../webhooks/catalog.js';
import { minimalEnvelope } from '../webhooks/delivery/minimal.js';
import { sampleEnvelope } from '../webhooks/samples.js';

export async function eventSampleRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  // `?payload=minimal`: what a webhook set to minimal payloads gets instead (the webhook form shows the one chosen).
  app.get<{ Params: { type: string }; Querystring: { payload?: string } }>('/events/:type/sample', async (req) => {
    const { type } = req.params;
    if (!isEventType(type)) throw notFound(`Event type ${JSON.stringify(type)}`);
    const payload = req.query.payload ?? 'full';
    if (payload !== 'full' && payload !== 'minimal') throw invalidParameter('payload', 'must be "full" or "minimal"');
    const sample = sampleEnvelope(type, core.clock.now());
    if (payload === 'full') return sample;
    return minimalEnvelope(core.config, {
      id: sample.id, type, created_at: sample.created_at, resource: null, data: JSON.stringify(sample.data),
      previous_attributes: sample.previous_attributes ? JSON.stringify(sample.previous_attributes) : null,
    });
  });
}
