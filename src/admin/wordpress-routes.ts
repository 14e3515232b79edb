// The console's Connect WordPress page (web/src/wordpress/): GET /admin/api/wordpress/plugin.zip (the plugin as
// `npm run build` packs it), POST /admin/api/wordpress/host-token (a new host token, shown once: the same rotation as
// `waypost host-token --rotate`, so the old token stops working) and GET /admin/api/wordpress/status (the site's last
// contact, src/admin/wordpress-contact.ts). Behind the admin session like the rest of /admin/api.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { requestActor } from '../audit/record.js';
import type { Core } from '../core.js';
import { AppError } from '../errors.js';
import { HOST_TOKEN_SETTING, rotateHostToken } from '../host/token.js';
import { PACKAGE_ROOT } from './console.js';
import { lastContact, type WordPressContact } from './wordpress-contact.js';

export const PLUGIN_FILE_NAME = 'waypost-bridge.zip';
/** Where `npm run build` writes the plugin (src/build/wordpress-plugin.ts); a field so tests can point elsewhere. */
export const wordpressPlugin = { zipPath: join(PACKAGE_ROOT, 'dist', PLUGIN_FILE_NAME) };

export type HostTokenSource = 'environment' | 'stored' | 'none';

/** Each field null until the site reports it. */
export type WordPressStatus = { [K in keyof WordPressContact]: WordPressContact[K] | null } & {
  /** Whether the site has made an authenticated request yet. */
  connected: boolean;
  /** The plugin's zip as this server can serve it (it carries Waypost's version); null when not built. */
  plugin: { file: string; bytes: number; version: string } | null;
  /** The URL the site's Waypost URL field takes (WAYPOST_BASE_URL). */
  waypost_url: string;
  /** environment: WAYPOST_HOST_TOKEN decides, and the console cannot make one. */
  host_token_source: HostTokenSource;
};

/** The zip's size, or null when there is none. */
const pluginFile = () => stat(wordpressPlugin.zipPath).then((s) => (s.isFile() ? s.size : null), () => null);

async function hostTokenSource(core: Core): Promise<HostTokenSource> {
  if (core.config.hostToken) return 'environment';
  const row = await core.db.selectFrom('settings').select('name').where('name', '=', HOST_TOKEN_SETTING)
    .executeTakeFirst();
  return row ? 'stored' : 'none';
}

export async function wordpressStatus(core: Core): Promise<WordPressStatus> {
  const contact = await lastContact(core);
  return {
    connected: contact !== null,
    last_contact_at: contact?.last_contact_at ?? null,
    site_url: contact?.site_url ?? null,
    plugin_version: contact?.plugin_version ?? null,
    wordpress_version: contact?.wordpress_version ?? null,
    wp_travel_engine_version: contact?.wp_travel_engine_version ?? null,
    queue_length: contact?.queue_length ?? null,
    plugin: await pluginFile().then((bytes) => (bytes === null ? null
      : { file: PLUGIN_FILE_NAME, bytes, version: core.config.version })),
    waypost_url: core.config.baseUrl,
    host_token_source: await hostTokenSource(core),
  };
}

export async function wordpressAdminRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;

  app.get('/wordpress/plugin.zip', async (_req, reply) => {
    const path = wordpressPlugin.zipPath;
    const size = await pluginFile();
    if (size === null) {
      throw new AppError(404, 'plugin_not_built', 'Not Found', 'The WordPress plugin has not been built on this '
        + 'server: run "npm run build" in the Waypost folder (it writes dist/waypost-bridge.zip), then try again.');
    }
    return reply.header('content-type', 'application/zip').header('content-length', size)
      .header('content-disposition', `attachment; filename="${PLUGIN_FILE_NAME}"`)
      .send(createReadStream(path));
  });

  app.post('/wordpress/host-token', async (req) => {
    // Refused with 409 while WAYPOST_HOST_TOKEN decides (rotateHostToken says so).
    const token = await rotateHostToken(core, requestActor(req));
    req.log.info({ admin: req.admin?.adminId ?? null }, 'host token replaced from the console');
    return { token, previous_token: 'revoked' as const };
  });

  app.get('/wordpress/status', async () => wordpressStatus(core));
}
