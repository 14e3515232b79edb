// The report's description of what was measured and how (the JSON's `setup`; the .md quotes parts of it).
import { BATCH, BOOKINGS, CUSTOMERS, FROM, ROUNDS, WARMUP } from './options.js';

export const setup = (wordpress: string, php: string, mariadb: string) => ({
  wordpress: `Debian's WordPress ${wordpress}, php -S (PHP_CLI_SERVER_WORKERS=4), PHP ${php}, MariaDB ${mariadb}, `
    + 'fixture wpte-6.8.0, Waypost Bridge active, WP-Cron off',
  waypost: 'testWaypost() (SQLite), app().listen(), one webhook subscribed to all events, no delivery worker',
  checkout: 'mu-plugin replaying WP Travel Engine 6.8.0\'s checkout write order (test/bridge/forwarding.test.ts, '
    + `without its 50 ms pauses), copying fixture booking ${FROM}: booking, customer, payment; the bridge sends `
    + 'customer, payment, booking',
  sides: {
    off: 'forwarding off (waypost_bridge_forward_enabled = false): baseline',
    up: 'WAYPOST_URL = Waypost',
    down: 'WAYPOST_URL = a closed port (connection refused)',
    hang: 'WAYPOST_URL = a TCP server that accepts and never answers; the cool-down option is cleared before it, '
      + 'so each one meets the 2 s timeout',
    cooldown: 'the request right after a hang one, same target, in the bridge\'s 60 s cool-down '
      + '(queues without trying)',
  },
  rounds: ROUNDS,
  warmup_rounds: WARMUP,
  order: 'interleaved: each round runs off, up, down, hang+cooldown, the order rotating by one each round',
  request_ms: 'fetch start to body end, as the client sees it (php -S cannot end the response early: the bridge\'s '
    + 'shutdown work is included)',
  added_ms: 'per round: this side\'s request minus the same round\'s off request',
  bridge_shutdown_ms: 'measured in PHP between shutdown hooks at PHP_INT_MAX - 101 and - 99 around the bridge\'s '
    + 'flush (PHP_INT_MAX - 100); the forwarder exposes no timing of its own',
  backfill: `Waypost_Bridge_Backfill::run_batch() with batch size ${BATCH} from the start to the end (all `
    + `resources), ${BOOKINGS} generated bookings with a payment each and ${CUSTOMERS} customers `
    + '(test/bridge/backfill.test.ts\'s generator) plus the fixture\'s and the checkouts\' records; "bridge only": '
    + 'WordPress\' HTTP answered inside PHP by a stub accepting every operation; "waypost": POST /host/v1/batch to '
    + 'a fresh Waypost each round (SQLite, one webhook, no worker), the two sides alternating order by round. '
    + 'Times are inside PHP (bootstrap excluded); a resource\'s rate comes from the batches that held only that '
    + 'resource (batches crossing from one resource to the next are under "mixed")',
});
