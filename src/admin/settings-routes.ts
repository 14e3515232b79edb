// GET|PUT /admin/api/settings: the alert e-mail address and log retention (failure e-mails cannot be turned off).
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import { getAdminSettings, updateAdminSettings } from './settings.js';

export async function settingsRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  app.get('/settings', async () => getAdminSettings(core));
  type Body = { alert_email?: unknown; log_retention_days?: unknown };
  app.put<{ Body: Body }>('/settings', { schema: { body: { type: 'object' } } }, async (req) => {
    const settings = await updateAdminSettings(core, req.body ?? {});
    req.log.info({
      admin: req.admin?.adminId, alert_email_source: settings.alert_email_source,
      log_retention_days: settings.log_retention_days,
    }, 'settings updated');
    return settings;
  });
}
