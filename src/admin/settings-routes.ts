// GET|PUT /admin/api/settings: the alert e-mail address, the log retention, how long payloads and receivers' answers
// are kept within it, and the audit-log retention (failure e-mails cannot be turned off); GET also says whether private
// targets are allowed, which only the server's shell changes. A change is recorded in the audit log with it (the
// names of the settings it changed).
import type { FastifyInstance } from 'fastify';
import { requestActor } from '../audit/record.js';
import type { Core } from '../core.js';
import { getAdminSettings, updateAdminSettings, type SettingsInput } from './settings.js';
import { forbidden } from '../errors.js';
import { ALLOW_PRIVATE_TARGETS_COMMAND } from '../webhooks/private-targets.js';

export async function settingsRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  app.get('/settings', async () => getAdminSettings(core));
  app.put<{ Body: SettingsInput }>('/settings', { schema: { body: { type: 'object' } } }, async (req) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if ('private_targets' in body || 'allow_private_targets' in body) {
      // The SSRF guard protects the server's network from people who manage webhooks: only its shell turns it off.
      throw forbidden('server_setting', 'Private targets are allowed or refused on the server, not in the console: '
        + `${ALLOW_PRIVATE_TARGETS_COMMAND} (or false).`);
    }
    const settings = await updateAdminSettings(core, req.body ?? {}, requestActor(req));
    req.log.info({
      admin: req.admin?.adminId, alert_email_source: settings.alert_email_source,
      log_retention_days: settings.log_retention_days, payload_retention_days: settings.payload_retention_days,
      response_retention_days: settings.response_retention_days, audit_retention_days: settings.audit_retention_days,
    }, 'settings updated');
    return settings;
  });
}
