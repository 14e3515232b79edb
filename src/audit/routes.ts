// GET /admin/api/audit: the audit log newest first, filtered and paged (the admin auth hook is applied by
// src/admin/routes.ts). Read only: the application appends entries (./record.ts) and never changes them.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Core } from '../core.js';
import { humanValidationError } from '../http/validation-messages.js';
import { listAudit, MAX_PER_PAGE, type AuditQuery } from './read.js';

const Text = (maxLength: number) => Type.Optional(Type.String({ minLength: 1, maxLength }));
const ListQuery = Type.Object({
  action: Text(100),
  actor_type: Text(20),
  target_id: Text(200),
  since: Text(40),
  until: Text(40),
  after: Text(100),
  perpage: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE })),
}, { additionalProperties: false });

export async function auditAdminRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  app.setSchemaErrorFormatter(humanValidationError);
  app.get('/audit', { schema: { querystring: ListQuery } }, async (req) => listAudit(core, req.query as AuditQuery));
}
