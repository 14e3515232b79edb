// Admin JSON API and console (placeholder: the webhooks and console issues fill this in).
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';

export async function adminRoutes(_app: FastifyInstance, _opts: { core: Core }): Promise<void> {}
