// The console's Events view under /admin/api (the admin auth hook is applied by src/admin/routes.ts): the event
// list, one event with its outcome at each webhook, and "Send to webhook…". Logic in ./admin.ts.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { requestActor } from '../audit/record.js';
import type { Core } from '../core.js';
import { AppError } from '../errors.js';
import { humanValidationError } from '../http/validation-messages.js';
import { eventDetail, listEvents, sendEventTo, type EventListQuery } from './admin.js';

const ListQuery = Type.Object({
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })), // `booking.created`, `booking.*`, comma-separated
  record: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })), // `booking:1042`
  after: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })), // the `next` of the previous page
  perpage: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
}, { additionalProperties: false });
// Any text: an id that names no event is a 404, as the webhook and delivery ids are.
const EventParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const SendBody = Type.Object({ webhook_id: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false });

export async function eventAdminRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  // The console's words, and `parameter` (not only `field`) for a query parameter, as the feed's own 400s say.
  app.setSchemaErrorFormatter((errors, where) => {
    const err = humanValidationError(errors, where) as AppError;
    if (where !== 'querystring' && where !== 'params') return err;
    return new AppError(400, 'invalid_parameter', err.title, err.detail, { ...err.extra, parameter: err.extra.field });
  });

  app.get('/events', { schema: { querystring: ListQuery } }, async (req) =>
    listEvents(core, req.query as EventListQuery));
  app.get('/events/:id', { schema: { params: EventParams } }, async (req) =>
    eventDetail(core, (req.params as { id: string }).id));
  app.post('/events/:id/send', { schema: { params: EventParams, body: SendBody } }, async (req, reply) => {
    const [id, webhookId] = [(req.params as { id: string }).id, (req.body as { webhook_id: string }).webhook_id];
    return reply.code(201).send(await sendEventTo(core, id, webhookId, requestActor(req)));
  });
}
