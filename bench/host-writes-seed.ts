// Before a turn of bench/host-writes.ts, in its own process on the source tree given as argv[2] (this checkout or the
// baseline commit's, see before-tree.ts): migrates the fresh database with that tree's code and, when asked, adds
// one webhook subscribed to every booking.* event of that tree's catalog, so `serve` then starts on a ready database.
// Only APIs that every measured commit has are used (as in latency-child.ts).
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const [tree, databaseUrl, receiverUrl, webhooksArg] = process.argv.slice(2);
const load = (path: string) => import(pathToFileURL(join(tree, path)).href);
const { createWaypost } = await load('src/sdk.ts');
const { createLogger } = await load('src/log.ts');
const { addWebhook } = await load('test/webhooks/engine/fixtures.ts');
const { EVENT_TYPE_NAMES } = await load('src/webhooks/catalog.ts');

const wp = await createWaypost({
  env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' }, config: { databaseUrl }, logger: createLogger('silent'),
});
const events = (EVENT_TYPE_NAMES as string[]).filter((t) => t.startsWith('booking.'));
for (let w = 0; w < Number(webhooksArg); w++) {
  await addWebhook(wp.core, receiverUrl, { events, name: `booking hook ${w}` });
}
await wp.close();
