// Admin JSON API for webhooks, the delivery log and alerts, under /admin/api (the admin auth hook is applied by
// src/admin/routes.ts). Thin: every handler calls the same service function the CLI uses; the services validate
// and throw AppErrors naming the field, so bad input is a 400 problem, never a 500. Admin actions are recorded in
// the audit log (src/audit/): a change to a webhook in its own transaction (the service is given the actor), the rest
// once they succeeded.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { recordAudit, requestActor, type AuditAction, type AuditDetails } from '../audit/record.js';
import type { Core } from '../core.js';
import { listAlerts } from './alerts-log.js';
import { EVENT_TYPES, isEventType } from './catalog.js';
import {
  getDelivery, listDeliveries, listLogWebhooks, redeliver, type DeliveryQuery,
} from './delivery-log.js';
import {
  createWebhook, deleteWebhook, disableWebhookByAdmin, getWebhook, listWebhooks, regenerateSecret,
  revealSecret, updateWebhook,
} from './manage.js';
import { filterFields } from './filters/fields.js';
import { previewFromBody } from './filters/preview.js';
import { getJob, listJobs, startRecover } from './recover/index.js';
import { enableAndCountMissed } from './recover/enable.js';
import { graceFromBody, rotateSecret } from './rotation.js';
import { webhookStats, webhooksHealth } from './stats/read.js';
import { sendTestEvent } from './test-send.js';

type IdParams = { Params: { id: string } };

export async function webhookAdminRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  const audit = (req: FastifyRequest, action: AuditAction, id: string, details: AuditDetails | null = null) =>
    recordAudit(core, requestActor(req), { action, targetType: 'webhook', targetId: id, details });
  // Action endpoints (enable, test, rotate…) take no body; clients that always send Content-Type: application/json
  // with an empty body should not get a 400 for it.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') return done(null, undefined);
    json(req, body as string, done);
  });

  // The catalog (labels, descriptions); GET /events is the console's Events view (src/feed/admin-routes.ts).
  app.get('/event-types', async () => EVENT_TYPES);

  // Payload filters: the fields the chosen event types carry (the editor's suggestions), and a filter tried on the
  // last 50 real events of those types before it is saved.
  app.get<{ Querystring: { events?: string } }>('/events/fields', async (req) => {
    const types = (req.query.events ?? '').split(',').filter(isEventType);
    return { items: filterFields(types.length > 0 ? types : undefined) };
  });
  app.post('/webhooks/preview-filter', async (req) => previewFromBody(core, req.body));

  app.get('/webhooks', async () => listWebhooks(core));
  // The charts (src/webhooks/stats/): answered from counters kept in the write path, never from the delivery log.
  app.get<{ Querystring: { range?: string } }>('/webhooks/health', async (req) =>
    webhooksHealth(core, req.query.range));
  app.get<IdParams & { Querystring: { range?: string } }>('/webhooks/:id/stats', async (req) =>
    webhookStats(core, req.params.id, req.query.range));
  app.post('/webhooks', async (req, reply) => {
    const created = await createWebhook(core, req.body, requestActor(req));
    return reply.code(201).send(created);
  });
  app.get<IdParams>('/webhooks/:id', async (req) => getWebhook(core, req.params.id));
  app.patch<IdParams>('/webhooks/:id', async (req) => updateWebhook(core, req.params.id, req.body, requestActor(req)));
  app.delete<IdParams>('/webhooks/:id', async (req, reply) => {
    await deleteWebhook(core, req.params.id, requestActor(req));
    return reply.code(204).send();
  });
  // Says how many events happened while it was off (missed_while_disabled): a recover since then sends them.
  app.post<IdParams>('/webhooks/:id/enable', async (req) =>
    enableAndCountMissed(core, req.params.id, requestActor(req)));
  app.post<IdParams>('/webhooks/:id/disable', async (req) =>
    disableWebhookByAdmin(core, req.params.id, requestActor(req)));
  // Redeliver, once, what failed or was cancelled since a time, and send the events missed while the webhook was
  // disabled since then (unless `missed: false`): a job run in the background; 202 with its progress, which
  // GET …/recover/:job answers from any process.
  app.post<IdParams>('/webhooks/:id/recover', async (req, reply) => {
    const job = await startRecover(core, req.params.id, req.body ?? {});
    await audit(req, 'webhook.recovered', req.params.id, { job: job.id, since: job.since, missed: job.missed });
    return reply.code(202).header('location', `/admin/api/webhooks/${req.params.id}/recover/${job.id}`).send(job);
  });
  app.get<IdParams>('/webhooks/:id/recover', async (req) => ({ items: await listJobs(core, req.params.id) }));
  app.get<{ Params: { id: string; job: string } }>('/webhooks/:id/recover/:job', async (req) =>
    getJob(core, req.params.id, req.params.job));

  // The secret is never part of a webhook's representation; only these answers (and the create's) carry it. Every
  // /admin/api answer is Cache-Control: no-store (src/admin/routes.ts).
  // The audit log records that a secret was shown or replaced, never the secret.
  app.get<IdParams>('/webhooks/:id/secret', async (req) => {
    const shown = await revealSecret(core, req.params.id);
    await audit(req, 'webhook.secret_revealed', req.params.id);
    return shown;
  });
  // Rotate with a grace period (the old secret keeps signing beside the new one), or regenerate now (grace 0).
  app.post<IdParams>('/webhooks/:id/rotate-secret', async (req) => {
    const grace = graceFromBody(req.body);
    return rotateSecret(core, req.params.id, grace, requestActor(req));
  });
  app.post<IdParams>('/webhooks/:id/secret/rotate', async (req) =>
    regenerateSecret(core, req.params.id, requestActor(req)));

  app.post<IdParams & { Body: { event_type?: unknown } | null }>('/webhooks/:id/test', async (req) => {
    const sent = await sendTestEvent(core, req.params.id, req.body?.event_type);
    await audit(req, 'webhook.tested', req.params.id, { event_type: sent.event_type });
    return sent;
  });

  app.get<{ Querystring: DeliveryQuery }>('/deliveries', async (req) => listDeliveries(core, req.query));
  app.get('/deliveries/webhooks', async () => listLogWebhooks(core));
  app.get<IdParams>('/deliveries/:id', async (req) => getDelivery(core, req.params.id));
  app.post<IdParams>('/deliveries/:id/redeliver', async (req, reply) => {
    return reply.code(201).send(await redeliver(core, req.params.id, requestActor(req)));
  });

  app.get<{ Querystring: { page?: string; perpage?: string } }>('/alerts', async (req) => listAlerts(core, req.query));
}
