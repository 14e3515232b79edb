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
// Results: bench/results/bridge-<date>.json and .md (bridge-<date>-quick.* for --quick).
// Options: --quick (8 rounds, 1,000 bookings, 1 backfill round), --rounds N (default 30), --bookings N (default
// 5,000), --backfill-rounds N (default 3).
// Needs what the bridge's tests need: php-cli with mysqli, the mysql client, Debian's wordpress, MariaDB on
// 127.0.0.1:3306 and the WP Travel Engine fixtures (../shared/fixtures/wp-travel-engine or WPTE_FIXTURES).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import type { Waypost } from '../src/sdk.js';
import { testWaypost } from '../test/helpers/waypost.js';
import { addWebhook } from '../test/webhooks/engine/fixtures.js';
import { BRIDGE_DIR, hasWordPress, startWordPress, type WordPress } from '../test/bridge/wordpress.js';
import { generateBookingsPhp } from '../test/bridge/generate.js';

// ------------------------------------------------------------------------------------------------ options

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0) return process.argv[i + 1];
  const eq = process.argv.find((a) => a.startsWith(`--${name}=`));
  return eq?.slice(name.length + 3);
}
const QUICK = process.argv.includes('--quick');
const ROUNDS = Math.max(1, Number(option('rounds') ?? (QUICK ? 8 : 30)));
const BOOKINGS = Math.max(10, Number(option('bookings') ?? (QUICK ? 1_000 : 5_000)));
const CUSTOMERS = Math.max(1, Math.floor(BOOKINGS / 10));
const WARMUP = QUICK ? 1 : 2;
const BACKFILL_ROUNDS = Math.max(1, Number(option('backfill-rounds') ?? (QUICK ? 1 : 3)));
const BATCH = 200; // Waypost_Bridge_Backfill::DEFAULT_SIZE, what `wp waypost backfill` uses.
const FIRST_ID = 100_000; // Generated post ids start here (far above the fixture's and the checkouts').
const FROM = 28; // Fixture booking the checkout copies: Anna Schmidt #28, 2 adults on trip 25, paid in full (payment 30).
const TOKEN = 'test-host-token';
const UNREACHABLE_OPTION = 'waypost_bridge_unreachable_until'; // Waypost_Bridge_Forwarder::UNREACHABLE_OPTION

const SIDES = ['off', 'up', 'down', 'hang', 'cooldown'] as const;
type Side = (typeof SIDES)[number];

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s`;
const progress = (line: string) => console.error(`[${elapsed()}] ${line}`);

// ------------------------------------------------------------------------------------------------ the mu-plugin

const muPlugin = (targets: Record<'up' | 'down' | 'hang', string>) => String.raw`<?php
/**
 * Plugin Name: Waypost bench: WP Travel Engine checkout replay
 * Description: Benchmark only (bench/bridge.ts). Replays WP Travel Engine 6.8.0's checkout write order with meta copied
 * from a fixture booking (as test/bridge/forwarding.test.ts does), and points the bridge at Waypost, a closed port or
 * a server that never answers, per request.
 */

// Where the bridge sends, per request (mu-plugins load before plugins; the bridge reads the constant when it sends).
if ( ! defined( 'WAYPOST_URL' ) ) {
	$waypost_bench_targets = array( 'up' => '${targets.up}', 'down' => '${targets.down}', 'hang' => '${targets.hang}' );
	$waypost_bench_target  = isset( $_GET['waypost_target'] ) ? (string) $_GET['waypost_target'] : 'up';
	if ( 'cli' === PHP_SAPI && getenv( 'WAYPOST_BENCH_URL' ) ) {
		define( 'WAYPOST_URL', (string) getenv( 'WAYPOST_BENCH_URL' ) ); // The backfill's php() runs: a fresh Waypost per round.
	} else {
		define( 'WAYPOST_URL', isset( $waypost_bench_targets[ $waypost_bench_target ] ) ? $waypost_bench_targets[ $waypost_bench_target ] : $waypost_bench_targets['up'] );
	}
}

add_action( 'init', 'waypost_bench_route', 1 );

// Times the bridge's own work at shutdown (it sends at priority PHP_INT_MAX - 100), per request key.
add_action( 'shutdown', static function () {
	$GLOBALS['waypost_bench_shutdown'] = microtime( true );
}, PHP_INT_MAX - 101 );
add_action( 'shutdown', static function () {
	if ( isset( $_GET['waypost_bench'], $_GET['key'], $GLOBALS['waypost_bench_shutdown'] ) ) {
		file_put_contents( ABSPATH . '.waypost-bench-shutdown-ms', preg_replace( '/[^a-z0-9-]/', '', (string) $_GET['key'] ) . ' ' . round( 1000 * ( microtime( true ) - $GLOBALS['waypost_bench_shutdown'] ), 2 ) . "\n", FILE_APPEND );
	}
}, PHP_INT_MAX - 99 );

function waypost_bench_route() {
	if ( ! isset( $_GET['waypost_bench'] ) ) {
		return;
	}
	if ( ! empty( $_GET['waypost_off'] ) ) {
		add_filter( 'waypost_bridge_forward_enabled', '__return_false' );
	}
	waypost_bench_checkout( (int) $_GET['from'], sanitize_email( wp_unslash( $_GET['email'] ) ) );
}

/** A copy of a meta value with the source e-mail replaced. */
function waypost_bench_swap( $value, array $map ) {
	if ( is_array( $value ) ) {
		foreach ( $value as $k => $v ) {
			$value[ $k ] = waypost_bench_swap( $v, $map );
		}
		return $value;
	}
	return is_string( $value ) ? strtr( $value, $map ) : $value;
}

// The write order of test/bridge/forwarding.test.ts's replay, without its two 50 ms pauses.
function waypost_bench_checkout( $from, $email ) {
	global $wpdb;
	$meta        = static function ( $id, $key ) {
		return get_post_meta( $id, $key, true );
	};
	$src_payment = (int) $meta( $from, 'payments' )[0];
	$billing     = $meta( $from, 'billing_info' );
	$src_cust    = (int) $wpdb->get_var( $wpdb->prepare( "SELECT ID FROM {$wpdb->posts} WHERE post_type = 'customer' AND post_title = %s", $billing['email'] ) );
	$map         = array( $billing['email'] => $email );

	// BookingProcess::process_booking(): the booking post is inserted published and empty (save_post fires) ...
	$booking_id = wp_insert_post( array( 'post_type' => 'booking', 'post_status' => 'publish', 'post_title' => '' ) );
	do_action( 'wte_after_booking_created', $booking_id );
	update_post_meta( $booking_id, 'billing_info', waypost_bench_swap( $billing, $map ) );
	update_post_meta( $booking_id, 'order_trips', $meta( $from, 'order_trips' ) );
	// ... its title set (save_post fires again), still without cart_info, paid_amount or due_amount ...
	wp_update_post( array( 'ID' => $booking_id, 'post_title' => $billing['fname'] . ' ' . $billing['lname'] . ' #' . $booking_id, 'post_status' => 'publish' ) );
	// ... then the amounts and cart_info.
	update_post_meta( $booking_id, 'wp_travel_engine_booking_status', 'reserved' );
	update_post_meta( $booking_id, 'paid_amount', 0 );
	update_post_meta( $booking_id, 'due_amount', $meta( $from, 'cart_info' )['total'] );
	update_post_meta( $booking_id, 'cart_info', $meta( $from, 'cart_info' ) );
	update_post_meta( $booking_id, 'trip_datetime', $meta( $from, 'trip_datetime' ) );
	update_post_meta( $booking_id, 'wp_travel_engine_booking_setting', waypost_bench_swap( $meta( $from, 'wp_travel_engine_booking_setting' ), $map ) );
	update_post_meta( $booking_id, 'wptravelengine_billing_details', waypost_bench_swap( $meta( $from, 'wptravelengine_billing_details' ), $map ) );
	update_post_meta( $booking_id, 'wptravelengine_travelers_details', waypost_bench_swap( $meta( $from, 'wptravelengine_travelers_details' ), $map ) );
	// process_customer(): a new customer post (title = e-mail).
	$customer_id = wp_insert_post( array( 'post_type' => 'customer', 'post_status' => 'publish', 'post_title' => $email ) );
	update_post_meta( $customer_id, 'wptravelengine_traveller_details', array( waypost_bench_swap( $meta( $from, 'wptravelengine_travelers_details' )[0], $map ) ) );
	update_post_meta( $customer_id, 'wp_travel_engine_bookings', array( $booking_id ) );
	// create_payment(): the payment post is published before its meta; the booking lists it.
	$payment_id = wp_insert_post( array( 'post_type' => 'wte-payments', 'post_status' => 'publish', 'post_title' => 'Payment for booking #' . $booking_id ) );
	update_post_meta( $booking_id, 'payments', array( $payment_id ) );
	do_action( 'wptravelengine_after_booking_created', $booking_id );
	update_post_meta( $customer_id, 'wp_travel_engine_booking_setting', waypost_bench_swap( $meta( $src_cust, 'wp_travel_engine_booking_setting' ), $map ) );
	foreach ( array( 'cart_totals', 'payable', 'payment_gateway', 'billing_info', 'payment_source', 'is_due_payment', 'payment_key' ) as $key ) {
		update_post_meta( $payment_id, $key, waypost_bench_swap( $meta( $src_payment, $key ), $map ) );
	}
	update_post_meta( $payment_id, 'booking_id', $booking_id );
	update_post_meta( $payment_id, 'payment_status', 'pending' );
	// payment_gateway_process(): the gateway takes the money.
	update_post_meta( $payment_id, 'payment_status', 'completed' );
	update_post_meta( $payment_id, 'payment_amount', $meta( $src_payment, 'payment_amount' ) );
	update_post_meta( $payment_id, 'transaction_id', 'BENCH-' . $payment_id );
	update_post_meta( $payment_id, 'transaction_date', current_time( 'mysql' ) );
	// Complete.
	do_action( 'wp_travel_engine_after_booking_process_completed', $booking_id );
	header( 'X-Waypost-Bench: booking=' . $booking_id . '; customer=' . $customer_id . '; payment=' . $payment_id );
	wp_safe_redirect( home_url( '/thank-you/?booking=' . $booking_id ) );
	exit;
}
`;

// ------------------------------------------------------------------------------------------------ backfill PHP


/** WordPress' HTTP answered in PHP: every batch operation accepted (200), nothing leaves the process. */
const STUB_WAYPOST = `
add_filter( 'pre_http_request', static function ( $pre, $args, $url ) {
	if ( false === strpos( $url, '/host/v1/batch' ) ) {
		return $pre;
	}
	$results = array();
	$n       = substr_count( (string) $args['body'], '{"op":' );
	for ( $i = 0; $i < $n; $i++ ) {
		$results[] = array( 'index' => $i, 'status' => 200, 'created' => true, 'changed' => true );
	}
	return array( 'headers' => array(), 'body' => wp_json_encode( array( 'results' => $results ) ), 'response' => array( 'code' => 200, 'message' => 'OK' ), 'cookies' => array(), 'filename' => null );
}, 10, 3 );
`;

/** Up to maxBatches batches from a cursor (null: start over); prints seconds and counts per resource as JSON. */
const RUN_BATCHES = (cursor: unknown, maxBatches: number, stub: boolean) => `
${stub ? STUB_WAYPOST : ''}
$cursor  = json_decode( base64_decode( '${Buffer.from(JSON.stringify(cursor ?? null)).toString('base64')}' ), true );
$by      = array();
$batches = 0;
$done    = false;
while ( $batches < ${maxBatches} && ! $done ) {
	$resource = null === $cursor ? 'trips' : $cursor['resource'];
	$t        = microtime( true );
	$r        = Waypost_Bridge_Backfill::run_batch( $cursor, ${BATCH} );
	if ( null !== $r['error'] ) { fwrite( STDERR, $r['error'] ); exit( 1 ); }
	$s = microtime( true ) - $t;
	// A batch that crosses into the next resource (or, having ended exactly on its last record, finds none left and
	// moves on) is counted apart: only whole batches of one resource give that resource's rate.
	$end = $r['cursor']['resource'];
	if ( $end !== $resource ) {
		$resource = 'mixed';
	}
	if ( ! isset( $by[ $resource ] ) ) { $by[ $resource ] = array( 'seconds' => 0, 'sent' => 0, 'failed' => 0, 'skipped' => 0, 'batches' => 0 ); }
	$by[ $resource ]['seconds'] += $s;
	$by[ $resource ]['sent']    += $r['sent'];
	$by[ $resource ]['failed']  += $r['failed'];
	$by[ $resource ]['skipped'] += $r['skipped'];
	++$by[ $resource ]['batches'];
	$cursor = $r['cursor'];
	$done   = $r['done'];
	++$batches;
}
echo wp_json_encode( array( 'cursor' => $cursor, 'done' => $done, 'by' => $by, 'memory' => memory_get_peak_usage( true ) ) );
`;

// ------------------------------------------------------------------------------------------------ helpers

const round1 = (n: number) => Number(n.toFixed(1));

/** Nearest-rank percentile. */
function pct(values: number[], p: number): number {
  const s = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
function summary(values: number[]) {
  const v = values.filter((x) => Number.isFinite(x));
  return {
    median: round1(pct(v, 50)),
    p90: round1(pct(v, 90)),
    min: round1(Math.min(...v)),
    max: round1(Math.max(...v)),
    mean: round1(v.reduce((a, b) => a + b, 0) / v.length),
    n: v.length,
  };
}

/** A port nobody listens on (taken and released). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Accepts connections and never answers. */
async function silentServer(): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: NetServer = createNetServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => accepted,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function version(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8' }).split('\n')[0].trim();
  } catch {
    return 'unknown';
  }
}

/** The plugin as this run uses it (WordPress links the working tree's copy): a hash of its files, and git's view. */
function pluginState() {
  const files = (readdirSync(BRIDGE_DIR, { recursive: true }) as string[]).filter((f) => f.endsWith('.php')).sort();
  const hash = createHash('sha256');
  for (const f of files) hash.update(f).update(readFileSync(path.join(BRIDGE_DIR, f)));
  const git = (args: string[]) => { try { return execFileSync('git', args, { cwd: BRIDGE_DIR, encoding: 'utf8' }).trim(); } catch { return 'unknown'; } };
  return { commit: git(['rev-parse', '--short', 'HEAD']), uncommitted_changes: git(['status', '--porcelain', '--', '.']) !== '', sha256: hash.digest('hex').slice(0, 16) };
}

// ------------------------------------------------------------------------------------------------ run

if (!(await hasWordPress())) {
  console.error('bench:bridge needs php-cli (mysqli, openssl), the mysql client, Debian\'s wordpress and MariaDB on 127.0.0.1:3306');
  process.exit(1);
}

let waypost: Waypost | null = null;
let site: WordPress | null = null;
let silent: Awaited<ReturnType<typeof silentServer>> | null = null;
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
  progress(`bench:bridge${QUICK ? ' --quick' : ''}: ${ROUNDS} rounds x ${SIDES.length} sides, backfill of ${BOOKINGS.toLocaleString('en')} bookings`);

  // Waypost as the tests build it, one webhook subscribed to every event (events and deliveries are written; no
  // worker runs, so nothing is delivered).
  waypost = await testWaypost();
  const db = waypost.core.db;
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

  // ---------------------------------------------------------------- part 1: checkout requests
  const clearCoolDown = () => wp.sql(`DELETE FROM wp_options WHERE option_name = '${UNREACHABLE_OPTION}';`);
  let seq = 0;
  const ids: Record<Side, number[]> = { off: [], up: [], down: [], hang: [], cooldown: [] };

  async function checkout(side: Side) {
    const key = `${side}-${++seq}`;
    const target = side === 'off' ? 'up' : side === 'cooldown' ? 'hang' : side;
    const url = `${wp.url}/?waypost_bench=1&key=${key}&from=${FROM}&email=${encodeURIComponent(`${key}@example.org`)}&waypost_target=${target}${side === 'off' ? '&waypost_off=1' : ''}`;
    const t0 = performance.now();
    const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(30_000) });
    const body = await res.text();
    const ms = performance.now() - t0;
    if (res.status !== 302) throw new Error(`checkout (${side}) answered ${res.status}: ${body.slice(0, 500)}`);
    const header = Object.fromEntries((res.headers.get('x-waypost-bench') ?? '').split(';').map((p) => p.trim().split('=')).map(([k, v]) => [k, Number(v)]));
    const lines = (await readFile(path.join(wp.dir, '.waypost-bench-shutdown-ms'), 'utf8').catch(() => '')).split('\n');
    const line = lines.find((l) => l.startsWith(`${key} `));
    return { ms, shutdownMs: line ? Number(line.split(' ')[1]) : NaN, booking: header.booking as number };
  }

  const requestMs: Record<Side, number[]> = { off: [], up: [], down: [], hang: [], cooldown: [] };
  const shutdownMs: Record<Side, number[]> = { off: [], up: [], down: [], hang: [], cooldown: [] };
  const addedMs: Record<Side, number[]> = { off: [], up: [], down: [], hang: [], cooldown: [] };

  // One round: off, up, down and the hang + cooldown pair, in an order that rotates every round.
  const units: Side[][] = [['off'], ['up'], ['down'], ['hang', 'cooldown']];
  async function runRound(r: number, record: boolean) {
    const got: Partial<Record<Side, { ms: number; shutdownMs: number }>> = {};
    for (let u = 0; u < units.length; u++) {
      for (const side of units[(u + r) % units.length]) {
        const c = await checkout(side);
        got[side] = c;
        if (record) {
          requestMs[side].push(c.ms);
          shutdownMs[side].push(c.shutdownMs);
          ids[side].push(c.booking);
        }
      }
      // After the hang + cooldown pair: the next hang meets a fresh timeout, the other sides no cool-down.
      if (units[(u + r) % units.length][0] === 'hang') await clearCoolDown();
    }
    if (record) for (const side of SIDES) addedMs[side].push(got[side]!.ms - got.off!.ms);
    return got;
  }

  await clearCoolDown();
  progress(`warm-up: ${WARMUP} untimed round(s)…`);
  for (let w = 0; w < WARMUP; w++) await runRound(w, false);
  const hangConnectionsBefore = silent.connections();
  const part1Started = Date.now();
  for (let r = 0; r < ROUNDS; r++) {
    const got = await runRound(r, true);
    progress(`round ${String(r + 1).padStart(2)}/${ROUNDS}: ${SIDES.map((s) => `${s} ${got[s]!.ms.toFixed(0)} ms (shutdown ${got[s]!.shutdownMs.toFixed(1)})`).join(', ')}`);
  }
  const part1Seconds = (Date.now() - part1Started) / 1000;

  // Checks: the up bookings are in Waypost; the others are not, and wait in the queue.
  const inWaypost = async (list: number[]) => list.length
    ? Number((await sql<{ n: number }>`SELECT COUNT(*) AS n FROM bookings WHERE id IN (${sql.join(list)})`.execute(db)).rows[0].n)
    : 0;
  const queued = async (list: number[]) => list.length
    ? Number((await wp.sql(`SELECT COUNT(*) FROM wp_waypost_queue WHERE resource = 'bookings' AND record_id IN (${list.join(',')})`)).trim())
    : 0;
  const checks = {
    up_bookings_in_waypost: `${await inWaypost(ids.up)}/${ids.up.length}`,
    off_bookings_in_waypost: `${await inWaypost(ids.off)}/${ids.off.length}`,
    down_hang_cooldown_bookings_in_waypost: `${await inWaypost([...ids.down, ...ids.hang, ...ids.cooldown])}/${ids.down.length + ids.hang.length + ids.cooldown.length}`,
    down_hang_cooldown_bookings_queued: `${await queued([...ids.down, ...ids.hang, ...ids.cooldown])}/${ids.down.length + ids.hang.length + ids.cooldown.length}`,
    hang_connections_per_hang_request: round1((silent.connections() - hangConnectionsBefore) / ROUNDS),
  };
  progress(`checks: ${JSON.stringify(checks)}`);

  const requests = Object.fromEntries(SIDES.map((side) => [side, {
    request_ms: summary(requestMs[side]),
    added_ms: side === 'off' ? null : summary(addedMs[side]),
    bridge_shutdown_ms: summary(shutdownMs[side]),
  }]));

  // ---------------------------------------------------------------- part 2: backfill
  progress(`backfill: generating ${BOOKINGS.toLocaleString('en')} bookings, ${BOOKINGS.toLocaleString('en')} payments and ${CUSTOMERS.toLocaleString('en')} customers with SQL…`);
  const g0 = Date.now();
  const generated = await wp.php(generateBookingsPhp({ bookings: BOOKINGS, customers: CUSTOMERS, firstId: FIRST_ID }));
  if (generated !== 'ok') throw new Error(`generating bookings: ${generated}`);
  progress(`generated in ${((Date.now() - g0) / 1000).toFixed(1)} s`);

  type By = Record<string, { seconds: number; sent: number; failed: number; skipped: number; batches: number }>;
  interface BackfillRun {
    records: number; sent: number; failed: number; skipped: number; seconds: number; records_per_second: number;
    bookings: { in_whole_batches: number; failed: number; batches: number; seconds: number; bookings_per_second: number };
    by_resource: Record<string, unknown>; peak_php_memory_mib: number;
  }
  async function backfill(label: string, stub: boolean): Promise<BackfillRun> {
    let cursor: any = null;
    const by: By = {};
    let memory = 0;
    for (;;) {
      const out = JSON.parse(await wp.php(RUN_BATCHES(cursor, 5, stub)));
      for (const [resource, v] of Object.entries(out.by as By)) {
        const b = (by[resource] ??= { seconds: 0, sent: 0, failed: 0, skipped: 0, batches: 0 });
        b.seconds += v.seconds; b.sent += v.sent; b.failed += v.failed; b.skipped += v.skipped; b.batches += v.batches;
      }
      memory = Math.max(memory, out.memory);
      cursor = out.cursor;
      const b = by.bookings;
      progress(`backfill (${label}): ${cursor.position.toLocaleString('en')}/${cursor.total.toLocaleString('en')} records, ${Math.round(cursor.sent / Object.values(by).reduce((a, x) => a + x.seconds, 0))} records/s${b ? `, bookings ${(b.sent / b.seconds).toFixed(0)}/s` : ''}`);
      if (out.done) break;
    }
    const seconds = Object.values(by).reduce((a, b) => a + b.seconds, 0);
    const bk = by.bookings ?? { seconds: NaN, sent: 0, failed: 0, skipped: 0, batches: 0 };
    return {
      records: cursor.total as number,
      sent: cursor.sent as number,
      failed: cursor.failed as number,
      skipped: cursor.skipped as number,
      seconds: Number(seconds.toFixed(2)),
      records_per_second: Math.round(cursor.sent / seconds),
      // Bookings/s from the batches that held only bookings (the one crossing into payments is under "mixed").
      bookings: { in_whole_batches: bk.sent, failed: bk.failed, batches: bk.batches, seconds: Number(bk.seconds.toFixed(2)), bookings_per_second: Math.round(bk.sent / bk.seconds) },
      by_resource: Object.fromEntries(Object.entries(by).map(([r, v]) => [r, { ...v, seconds: Number(v.seconds.toFixed(3)), per_second: Math.round(v.sent / v.seconds) }])),
      peak_php_memory_mib: Math.round(memory / 2 ** 20),
    };
  }
  const wpBookings = Number((await wp.sql("SELECT COUNT(*) FROM wp_posts WHERE post_type = 'booking' AND post_status NOT IN ('trash', 'auto-draft', 'inherit')")).trim());
  // Each round: the bridge alone, and into a fresh Waypost (so every record is new to it), in alternating order.
  const backfillRounds: Array<{ bridge_only: BackfillRun; waypost: BackfillRun; waypost_bookings_after: number; ratio: number }> = [];
  for (let r = 1; r <= BACKFILL_ROUNDS; r++) {
    const target = await testWaypost();
    try {
      process.env.WAYPOST_BENCH_URL = await (await target.app()).listen({ port: 0, host: '127.0.0.1' });
      await addWebhook(target.core, 'http://127.0.0.1:9/hook');
      const label = `round ${r}/${BACKFILL_ROUNDS}`;
      let stubbed: BackfillRun;
      let sent: BackfillRun;
      if (r % 2 === 1) {
        stubbed = await backfill(`${label}, bridge only`, true);
        sent = await backfill(`${label}, Waypost`, false);
      } else {
        sent = await backfill(`${label}, Waypost`, false);
        stubbed = await backfill(`${label}, bridge only`, true);
      }
      const after = Number((await sql<{ n: number }>`SELECT COUNT(*) AS n FROM bookings`.execute(target.core.db)).rows[0].n);
      backfillRounds.push({ bridge_only: stubbed, waypost: sent, waypost_bookings_after: after, ratio: sent.bookings.bookings_per_second / stubbed.bookings.bookings_per_second });
      progress(`backfill ${label}: bookings/s ${sent.bookings.bookings_per_second} into Waypost vs ${stubbed.bookings.bookings_per_second} bridge only; Waypost holds ${after}/${wpBookings} bookings, ${sent.failed} failed`);
    } finally {
      delete process.env.WAYPOST_BENCH_URL;
      await target.close();
    }
  }
  const medianBy = <T>(list: T[], key: (x: T) => number) => [...list].sort((x, y) => key(x) - key(y))[Math.floor(list.length / 2)];
  const bridgeOnly = medianBy(backfillRounds.map((x) => x.bridge_only), (x) => x.bookings.bookings_per_second);
  const real = medianBy(backfillRounds.map((x) => x.waypost), (x) => x.bookings.bookings_per_second);
  const backfillChecks = {
    waypost_bookings_after_each_round: backfillRounds.map((x) => x.waypost_bookings_after),
    bookings_in_wordpress: wpBookings,
    failed: backfillRounds.map((x) => x.waypost.failed),
  };

  // ---------------------------------------------------------------- report
  const pluginAtEnd = pluginState();
  const plugin = { ...pluginAtStart, changed_during_run: pluginAtEnd.sha256 !== pluginAtStart.sha256 };
  if (plugin.changed_during_run) progress('WARNING: the plugin\'s files changed during the run; the figures mix two versions. Run it again.');
  const date = new Date();
  const stamp = date.toISOString().slice(0, 10);
  const php = version('php', ['-r', 'echo PHP_VERSION;']);
  const mariadb = version('mysql', ['-N', '-B', '-h', '127.0.0.1', '-P', '3306', '-u', 'root', '-e', 'SELECT VERSION()']);
  const wordpress = (await wp.php('echo get_bloginfo( "version" );')).trim();
  const out = {
    benchmark: 'WordPress bridge: time a checkout request spends on forwarding (Waypost up / down / hanging) against forwarding off, and backfill throughput',
    command: `npm run bench:bridge${QUICK ? ' -- --quick' : ''}`,
    quick: QUICK,
    setup: {
      wordpress: `Debian's WordPress ${wordpress}, php -S (PHP_CLI_SERVER_WORKERS=4), PHP ${php}, MariaDB ${mariadb}, fixture wpte-6.8.0, Waypost Bridge active, WP-Cron off`,
      waypost: 'testWaypost() (SQLite), app().listen(), one webhook subscribed to all events, no delivery worker',
      checkout: `mu-plugin replaying WP Travel Engine 6.8.0's checkout write order (test/bridge/forwarding.test.ts, without its 50 ms pauses), copying fixture booking ${FROM}: booking, customer, payment; the bridge sends customer, payment, booking`,
      sides: {
        off: 'forwarding off (waypost_bridge_forward_enabled = false): baseline',
        up: 'WAYPOST_URL = Waypost',
        down: 'WAYPOST_URL = a closed port (connection refused)',
        hang: 'WAYPOST_URL = a TCP server that accepts and never answers; the cool-down option is cleared before it, so each one meets the 2 s timeout',
        cooldown: 'the request right after a hang one, same target, in the bridge\'s 60 s cool-down (queues without trying)',
      },
      rounds: ROUNDS,
      warmup_rounds: WARMUP,
      order: 'interleaved: each round runs off, up, down, hang+cooldown, the order rotating by one each round',
      request_ms: 'fetch start to body end, as the client sees it (php -S cannot end the response early: the bridge\'s shutdown work is included)',
      added_ms: 'per round: this side\'s request minus the same round\'s off request',
      bridge_shutdown_ms: 'measured in PHP between shutdown hooks at PHP_INT_MAX - 101 and - 99 around the bridge\'s flush (PHP_INT_MAX - 100); the forwarder exposes no timing of its own',
      backfill: `Waypost_Bridge_Backfill::run_batch() with batch size ${BATCH} from the start to the end (all resources), ${BOOKINGS} generated bookings with a payment each and ${CUSTOMERS} customers (test/bridge/backfill.test.ts's generator) plus the fixture's and the checkouts' records; "bridge only": WordPress' HTTP answered inside PHP by a stub accepting every operation; "waypost": POST /host/v1/batch to a fresh Waypost each round (SQLite, one webhook, no worker), the two sides alternating order by round. Times are inside PHP (bootstrap excluded); a resource's rate comes from the batches that held only that resource (batches crossing from one resource to the next are under "mixed")`,
    },
    plugin,
    machine: { cpus: cpus().length, node: process.version, load_average_1m: Number(loadavg()[0].toFixed(2)) },
    date: date.toISOString(),
    part1_seconds: Math.round(part1Seconds),
    requests,
    checks,
    backfill: {
      bookings_generated: BOOKINGS,
      bookings_in_wordpress: wpBookings,
      rounds: BACKFILL_ROUNDS,
      reported: 'bridge_only and waypost: the median round of each by bookings/s; rounds: every round',
      bridge_only: bridgeOnly,
      waypost: real,
      waypost_vs_bridge_only_bookings_per_second: Number(medianBy(backfillRounds, (x) => x.ratio).ratio.toFixed(3)),
      per_round: backfillRounds.map((x) => ({ bridge_only_bookings_per_second: x.bridge_only.bookings.bookings_per_second, waypost_bookings_per_second: x.waypost.bookings.bookings_per_second, bridge_only_records_per_second: x.bridge_only.records_per_second, waypost_records_per_second: x.waypost.records_per_second })),
      checks: backfillChecks,
    },
    total_seconds: Math.round((Date.now() - started) / 1000),
  };

  const f = (n: number | null | undefined) => (n === null || n === undefined || !Number.isFinite(n) ? '–' : n.toFixed(1));
  const sign = (n: number) => (Number.isFinite(n) ? `${n >= 0 ? '+' : ''}${n.toFixed(1)}` : '–');
  const rows = SIDES.map((side) => {
    const r = requests[side];
    return `| ${side} | ${f(r.request_ms.median)} | ${f(r.request_ms.p90)} | ${r.added_ms ? sign(r.added_ms.median) : 'baseline'} | ${r.added_ms ? sign(r.added_ms.p90) : ''} | ${f(r.bridge_shutdown_ms.median)} | ${f(r.bridge_shutdown_ms.p90)} | ${f(r.bridge_shutdown_ms.max)} |`;
  });
  const md = [
    `# Bridge benchmark, ${stamp}${QUICK ? ' (quick)' : ''}`,
    '',
    ...(plugin.changed_during_run ? ['**The plugin\'s files changed during this run: the figures mix two versions.**', ''] : []),
    `\`${out.command}\` — plugin ${plugin.commit}${plugin.uncommitted_changes ? ` with uncommitted changes (files ${plugin.sha256})` : ''}, ${out.machine.cpus} CPUs, load ${out.machine.load_average_1m} at the end, Node ${process.version}, PHP ${php}, MariaDB ${mariadb}, WordPress ${wordpress}, ${out.total_seconds} s in all.`,
    '',
    `## A checkout request (${ROUNDS} per side, interleaved, after ${WARMUP} warm-up round(s))`,
    '',
    `${out.setup.checkout}. \`php -S\` cannot end the response before \`shutdown\`, so the client waits for the bridge's work here; on PHP-FPM/LiteSpeed it does not.`,
    '',
    '| side | request median ms | request p90 ms | added median ms | added p90 ms | bridge at shutdown median ms | p90 | max |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    ...Object.entries(out.setup.sides).map(([k, v]) => `- **${k}**: ${v}`),
    `- *added*: ${out.setup.added_ms}; *bridge at shutdown*: ${out.setup.bridge_shutdown_ms}.`,
    `- Checks: up bookings in Waypost ${checks.up_bookings_in_waypost}; off ${checks.off_bookings_in_waypost}; down/hang/cooldown in Waypost ${checks.down_hang_cooldown_bookings_in_waypost}, in the retry queue ${checks.down_hang_cooldown_bookings_queued}; connections to the silent server per hang request ${checks.hang_connections_per_hang_request}.`,
    '',
    `## Backfill (${BOOKINGS.toLocaleString('en')} generated bookings, batches of ${BATCH}; median of ${BACKFILL_ROUNDS} round(s))`,
    '',
    '| run | records sent | seconds | records/s | bookings in whole batches | their seconds | bookings/s | peak PHP MiB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    `| bridge only (Waypost stubbed in PHP) | ${bridgeOnly.sent} | ${bridgeOnly.seconds} | ${bridgeOnly.records_per_second} | ${bridgeOnly.bookings.in_whole_batches} | ${bridgeOnly.bookings.seconds} | ${bridgeOnly.bookings.bookings_per_second} | ${bridgeOnly.peak_php_memory_mib} |`,
    `| Waypost (POST /host/v1/batch, SQLite) | ${real.sent} | ${real.seconds} | ${real.records_per_second} | ${real.bookings.in_whole_batches} | ${real.bookings.seconds} | ${real.bookings.bookings_per_second} | ${real.peak_php_memory_mib} |`,
    '',
    `${wpBookings.toLocaleString('en')} bookings in WordPress (generated, fixture, checkouts); each round sends them into a fresh Waypost, which holds ${backfillChecks.waypost_bookings_after_each_round.join(', ')} bookings afterwards. Seconds are inside PHP (WordPress' start per php call excluded); bookings/s from the batches holding only bookings. Per round, bookings/s into Waypost / bridge only: ${backfillRounds.map((x) => `${x.waypost.bookings.bookings_per_second} / ${x.bridge_only.bookings.bookings_per_second}`).join('; ')}. Failed: ${backfillChecks.failed.join(', ')}; skipped (records the mapper gives nothing for): ${real.skipped}.`,
    '',
  ].join('\n');

  const base = `bridge-${stamp}${QUICK ? '-quick' : ''}`;
  const dir = new URL('./results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL(`${base}.json`, dir), `${JSON.stringify(out, null, 2)}\n`);
  writeFileSync(new URL(`${base}.md`, dir), md);
  console.log(`\n${md}`);
  console.log(`written: bench/results/${base}.json, bench/results/${base}.md`);
} finally {
  await cleanup();
}
