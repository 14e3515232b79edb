// Admin JSON API for API keys and their usage (placeholder: filled in with the REST API).
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';

export async function keyAdminRoutes(_app: FastifyInstance, _opts: { core: Core }): Promise<void> {}
