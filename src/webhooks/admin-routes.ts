// Admin JSON API for webhooks, deliveries and alerts (placeholder: the webhooks issue fills this in).
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';

export async function webhookAdminRoutes(_app: FastifyInstance, _opts: { core: Core }): Promise<void> {}
