// /admin: the console (static SPA) and its JSON API under /admin/api. Each capability owns its admin routes.
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import fastifyCookie from '@fastify/cookie';
import { adminAuthHook } from './auth.js';
import { consoleRoutes } from './console.js';
import { sessionRoutes } from './session-routes.js';
import { settingsRoutes } from './settings-routes.js';
import { signInLinkRoutes } from './sign-in-links.js';
import { webhookAdminRoutes } from '../webhooks/admin-routes.js';
import { eventSampleRoutes } from './event-samples.js';
import { eventAdminRoutes } from '../feed/admin-routes.js';
import { keyAdminRoutes } from '../api/admin-routes.js';
import { accountRoutes } from './account-routes.js';
import { wordpressAdminRoutes } from './wordpress-routes.js';
import { privacyAdminRoutes } from '../privacy/routes.js';
import { auditAdminRoutes } from '../audit/routes.js';

export async function adminRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  await app.register(fastifyCookie);
  // An admin console is not for search engines: every /admin answer says so (web/index.html has the meta tag too).
  app.addHook('onRequest', async (_req, reply) => { reply.header('x-robots-tag', 'noindex'); });
  await app.register(consoleRoutes);
  // Outside /api and its auth hook: the link itself is the credential.
  await app.register(signInLinkRoutes, { core });
  await app.register(async (api) => {
    // Answers here carry secrets (a new key's secret, a webhook's, the CSRF token) or private data (delivery
    // payloads): no browser or proxy may keep one. One hook, before auth so refusals say it too, so that a route
    // added later cannot forget it.
    api.addHook('onRequest', async (_req, reply) => { reply.header('cache-control', 'no-store'); });
    api.addHook('onRequest', adminAuthHook(core));
    await api.register(webhookAdminRoutes, { core });
    await api.register(eventSampleRoutes, { core });
    await api.register(eventAdminRoutes, { core });
    await api.register(keyAdminRoutes, { core });
    await api.register(sessionRoutes, { core });
    await api.register(settingsRoutes, { core });
    await api.register(accountRoutes, { core });
    await api.register(wordpressAdminRoutes, { core });
    await api.register(privacyAdminRoutes, { core });
    await api.register(auditAdminRoutes, { core });
  }, { prefix: '/api' });
}
