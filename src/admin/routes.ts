// /admin: the console (static SPA) and its JSON API under /admin/api. Each capability owns its admin routes.
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import { adminAuthHook } from './auth.js';
import { webhookAdminRoutes } from '../webhooks/admin-routes.js';
import { keyAdminRoutes } from '../api/admin-routes.js';

export async function adminRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  await app.register(async (api) => {
    api.addHook('onRequest', adminAuthHook(core));
    await api.register(webhookAdminRoutes, { core });
    await api.register(keyAdminRoutes, { core });
  }, { prefix: '/api' });
}
