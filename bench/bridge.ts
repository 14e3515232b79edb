// WordPress bridge benchmark (`npm run bench:bridge [-- --quick]`): a real WordPress (Debian's, on MariaDB, served by
// `php -S`, WP Travel Engine 6.8.0 fixture, the Waypost Bridge plugin active) and a real Waypost (test configuration,
// SQLite, one webhook subscription, HTTP server only), as the bridge's tests build them (test/bridge/wordpress.ts,
// test/helpers/waypost.ts). Two parts:
//
// 1. What forwarding adds to a WordPress request that saves a booking. A mu-plugin replays WP Travel Engine's
//    checkout write order (the approach of test/bridge/forwarding.test.ts: empty booking post published first, then
//    its meta, a customer, a payment published before its meta, the gateway marking it paid, the completion hook, a
//    redirect). The same request is timed, interleaved round by round (the order rotating every round):
//      off       forwarding disabled with the `waypost_bridge_forward_enabled` filter (the baseline)
//      up        Waypost answering (the bridge sends customer, payment, booking: 3 PUTs)
//      down      Waypost's port closed (connection refused; the writes are queued)
//      hang      a TCP server that accepts and never answers (the bridge waits for its 2 s timeout once, then queues)
//      cooldown  the request right after a `hang` one: the bridge is in its 60 s cool-down and does not try at all
//    Which of these a request gets is chosen per request: the mu-plugin defines WAYPOST_URL from a query parameter
//    (Waypost itself, a closed port, or the silent server), so no proxy sits in front of Waypost. After each hang +
//    cooldown pair the bench deletes the cool-down option, so every `hang` request meets a fresh timeout and the
//    other sides are never in cool-down. Reported: whole-request time as the client sees it, the bridge's own time
//    at `shutdown` (the forwarder exposes no timing of its own: the mu-plugin brackets its shutdown hook, priority
//    PHP_INT_MAX - 100, with hooks at -101 and -99, as the test does), and the time added per round against that
//    round's `off` request. `php -S` cannot end the response before shutdown, so the visitor waits for all of it
//    here; on PHP-FPM and LiteSpeed the bridge ends the response first.
//
// 2. Backfill throughput: N generated bookings (a payment each, N/10 customers) inserted with SQL the way
//    test/bridge/backfill.test.ts does, then Waypost_Bridge_Backfill::run_batch() at its default batch size (200)
//    from start to end, in rounds (3; 1 with --quick), each with both sides in alternating order: WordPress' HTTP
//    answered in PHP by a stub that accepts every operation (the bridge's own cost: reading, mapping, JSON), and a
//    fresh Waypost (POST /host/v1/batch into SQLite, events for one webhook). The median round of each is reported.
//
// Results: bench/results/bridge-<date>.json and .md (bridge-<date>-quick.* for --quick). The parts live in
// bench/bridge/ (checkout.ts, backfill.ts, report.ts; the WordPress PHP in its .php files).
// Options: --quick (8 rounds, 1,000 bookings, 1 backfill round), --rounds N (default 30), --bookings N (default
// 5,000), --backfill-rounds N (default 3).
// Needs what the bridge's tests need: php-cli with mysqli, the mysql client, Debian's wordpress, MariaDB on
// 127.0.0.1:3306 and the WP Travel Engine fixtures (../shared/fixtures/wp-travel-engine or WPTE_FIXTURES).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Waypost } from '../src/sdk.js';
import { testWaypost } from '../test/helpers/waypost.js';
import { addWebhook } from '../test/webhooks/engine/fixtures.js';
import { BRIDGE_DIR, hasWordPress, startWordPress, type WordPress } from '../test/bridge/wordpress.js';
import { measureBackfill } from './bridge/backfill.js';
import { measureCheckouts } from './bridge/checkout.js';
import { pluginState } from './bridge/machine.js';
import { BOOKINGS, QUICK, ROUNDS, SIDES, TOKEN, progress, thousands } from './bridge/options.js';
import { muPlugin } from './bridge/php.js';
import { report } from './bridge/report.js';
import { closedPort, silentServer, type SilentServer } from './bridge/servers.js';

if (!(await hasWordPress())) {
  console.error('bench:bridge needs php-cli (mysqli, openssl), the mysql client, Debian\'s wordpress and MariaDB on '
    + '127.0.0.1:3306');
  process.exit(1);
}

let waypost: Waypost | null = null;
let site: WordPress | null = null;
let silent: SilentServer | null = null;
let cleaning: Promise<void> | null = null;
const cleanup = () => (cleaning ??= (async () => {
  await site?.close().catch(() => undefined);
  await silent?.close().catch(() => undefined);
  await waypost?.close().catch(() => undefined);
})());
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping WordPress and dropping its database…`);
    void cleanup().finally(() => process.exit(130));
  });
}

try {
  const pluginAtStart = pluginState();
  progress(`bench:bridge${QUICK ? ' --quick' : ''}: ${ROUNDS} rounds x ${SIDES.length} sides, `
    + `backfill of ${thousands(BOOKINGS)} bookings`);

  // Waypost as the tests build it, one webhook subscribed to every event (events and deliveries are written; no
  // worker runs, so nothing is delivered).
  waypost = await testWaypost();
  const waypostUrl = await (await waypost.app()).listen({ port: 0, host: '127.0.0.1' });
  await addWebhook(waypost.core, 'http://127.0.0.1:9/hook');
  silent = await silentServer();
  const downUrl = `http://127.0.0.1:${await closedPort()}`;
  const targets = { up: waypostUrl, down: downUrl, hang: silent.url };
  progress(`Waypost ${waypostUrl}; down = ${downUrl} (closed); hang = ${silent.url} (accepts, never answers)`);

  progress('starting WordPress (fixture wpte-6.8.0, Waypost Bridge active)…');
  site = await startWordPress({
    fixture: 'wpte-6.8.0',
    plugins: [BRIDGE_DIR],
    // WAYPOST_URL comes from the mu-plugin, per request. No WP-Cron: the queue is not retried mid-measurement.
    constants: { WAYPOST_HOST_TOKEN: TOKEN, DISABLE_WP_CRON: true },
  });
  const wp = site;
  await mkdir(path.join(wp.dir, 'wp-content/mu-plugins'), { recursive: true });
  await writeFile(path.join(wp.dir, 'wp-content/mu-plugins/waypost-bench-checkout.php'), muPlugin(targets));
  progress(`WordPress ${wp.url} (database ${wp.db})`);

  const checkouts = await measureCheckouts(wp, waypost.core.db, silent);
  const backfill = await measureBackfill(wp);
  await report(wp, pluginAtStart, checkouts, backfill);
} finally {
  await cleanup();
}
