// The failure e-mails sent (the console's Alerts list, `waypost alerts list`), newest first, a page at a time.
import type { Core } from '../core.js';
import type { AlertView } from '../alerts/views.js';
import { pageParams } from './delivery-log.js';
import type { Page } from './views.js';

export async function listAlerts(
  core: Core, query: { page?: number | string; perpage?: number | string } = {},
): Promise<Page<AlertView>> {
  const { page, perpage } = pageParams(query);
  const rows = await core.db.selectFrom('alerts')
    .leftJoin('webhooks', 'webhooks.id', 'alerts.webhook_id')
    .selectAll('alerts').select('webhooks.name as webhook_name')
    .orderBy('alerts.created_at', 'desc').orderBy('alerts.id', 'desc')
    .limit(perpage).offset((page - 1) * perpage)
    .execute();
  const counted = await core.db.selectFrom('alerts').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  const items = rows.map((r) => ({ ...r, webhook_name: r.webhook_name ?? null }));
  return { items, total: Number(counted.n), page, perpage };
}
