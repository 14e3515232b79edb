// The signed-in admin's own account: GET /admin/api/account, and PUT|DELETE /admin/api/account/wordpress-link,
// by which its owner allows (or stops) one WordPress user to sign in as it with "Open Webhooks & API". Only the
// owner in a console session may: not the admin token, which is no one's account.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { recordAudit, requestActor } from '../audit/record.js';
import type { Core } from '../core.js';
import { forbidden, unauthorized } from '../errors.js';
import { accountView, parseSiteUrl, parseWpUserId, setWordPressLink, type AccountView } from './wordpress-link.js';

export async function accountRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;

  const ownerOf = (req: FastifyRequest): string => {
    if (req.admin?.kind !== 'session' || !req.admin.adminId) {
      throw forbidden('session_required',
        'Only an account\'s owner, signed in to the console, can see or change it (not the admin token).');
    }
    return req.admin.adminId;
  };
  const view = async (adminId: string): Promise<AccountView> => {
    const account = await accountView(core.db, adminId);
    if (!account) throw unauthorized('session_expired', 'Your session has ended. Sign in again.');
    return account;
  };

  app.get('/account', async (req) => view(ownerOf(req)));

  type Body = { site_url?: unknown; wp_user_id?: unknown };
  app.put<{ Body: Body }>('/account/wordpress-link', { schema: { body: { type: 'object' } } }, async (req) => {
    const adminId = ownerOf(req);
    const body = req.body ?? {};
    const user = { site_url: parseSiteUrl(body.site_url), wp_user_id: parseWpUserId(body.wp_user_id) };
    await core.db.transaction().execute(async (trx) => { // the change and its audit entry commit together
      await setWordPressLink(trx, adminId, user);
      await recordAudit(core, requestActor(req), { action: 'admin.wordpress_linked', targetType: 'admin',
        targetId: adminId, details: user }, trx);
    });
    req.log.info({ admin: adminId, ...user }, 'admin allowed WordPress sign-in links for their account');
    return view(adminId);
  });

  app.delete('/account/wordpress-link', async (req) => {
    const adminId = ownerOf(req);
    await core.db.transaction().execute(async (trx) => {
      await setWordPressLink(trx, adminId, null);
      await recordAudit(core, requestActor(req), { action: 'admin.wordpress_unlinked', targetType: 'admin',
        targetId: adminId }, trx);
    });
    req.log.info({ admin: adminId }, 'admin stopped WordPress sign-in links for their account');
    return view(adminId);
  });
}
