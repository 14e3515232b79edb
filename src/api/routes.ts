// Read-only REST API v1 (placeholder: the API issue fills this in).
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';

export async function apiRoutes(_app: FastifyInstance, _opts: { core: Core }): Promise<void> {}
