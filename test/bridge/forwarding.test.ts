// The bridge's forwarding against a real WordPress (Debian's, on MariaDB, served by `php -S`) with the WP Travel
// Engine 6.8.0 fixture, a real Waypost (HTTP server + delivery worker) and a real webhook receiver. Between WordPress
// and Waypost sits a small TCP proxy that records what the bridge sends and can play "Waypost down" (its port
// closed) and "Waypost hangs" (connections accepted, never answered).
//
// WP Travel Engine is not installed: a test mu-plugin replays its checkout write order (BookingProcess, see
// shared/fixtures/wp-travel-engine/README.md "When the data is complete") over HTTP, copying a fixture booking's
// meta: an empty booking post published first (save_post fires), then its meta, a customer, a payment post
// published before its meta, the gateway marking it paid, and the completion hook, then a redirect and exit.
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testWaypost } from '../helpers/waypost.js';
import { startReceiver, type Receiver } from '../webhooks/engine/receiver.js';
import { addWebhook } from '../webhooks/engine/fixtures.js';
import type { Waypost } from '../../src/sdk.js';
import { BRIDGE_DIR, hasWordPress, startWordPress, type WordPress } from './wordpress.js';

const TOKEN = 'test-host-token';
/** The bridge's per-request timeout for Waypost (Waypost_Bridge_Forwarder::TIMEOUT). */
const TIMEOUT_MS = 2000;
/** Slack for a loaded CI machine on top of the timeout (PHP, MariaDB and Node share it). */
const MARGIN_MS = 1000;
/** Source booking in the fixture: Anna Schmidt #28, 2 adults on trip 25, paid in full (payment 30). */
const FROM = 28;

// ------------------------------------------------------------------------------------------------ the test plugin

const CHECKOUT_PLUGIN = String.raw`<?php
/**
 * Plugin Name: Waypost test: WP Travel Engine checkout replay
 * Description: Test only. Replays WP Travel Engine 6.8.0's checkout write order with meta copied from a fixture booking.
 */
add_action( 'init', 'waypost_test_route', 1 );

// Times the bridge's own work at shutdown (it sends at priority PHP_INT_MAX - 100), per checkout e-mail.
add_action( 'shutdown', static function () {
	$GLOBALS['waypost_test_shutdown'] = microtime( true );
}, PHP_INT_MAX - 101 );
add_action( 'shutdown', static function () {
	if ( isset( $_GET['waypost_test'], $_GET['email'], $GLOBALS['waypost_test_shutdown'] ) && 'checkout' === $_GET['waypost_test'] ) {
		file_put_contents( ABSPATH . '.waypost-flush-ms', sanitize_email( wp_unslash( $_GET['email'] ) ) . ' ' . round( 1000 * ( microtime( true ) - $GLOBALS['waypost_test_shutdown'] ), 1 ) . "\n", FILE_APPEND );
	}
}, PHP_INT_MAX - 99 );

function waypost_test_route() {
	if ( ! isset( $_GET['waypost_test'] ) ) {
		return;
	}
	if ( ! empty( $_GET['waypost_off'] ) ) {
		add_filter( 'waypost_bridge_forward_enabled', '__return_false' );
	}
	switch ( (string) $_GET['waypost_test'] ) {
		case 'checkout':
			waypost_test_checkout( (int) $_GET['from'], sanitize_email( wp_unslash( $_GET['email'] ) ) );
			break;
		case 'abandoned':
			// A checkout that dies after publishing the empty booking post (a fatal error, a killed worker).
			$id = wp_insert_post( array( 'post_type' => 'booking', 'post_status' => 'publish', 'post_title' => '' ) );
			update_post_meta( $id, 'billing_info', array( 'fname' => 'Half', 'lname' => 'Written', 'email' => 'half@example.org' ) );
			header( 'X-Waypost-Test: booking=' . $id );
			exit;
		case 'admin_update':
			// The admin records the booking as booked (what SaveBooking ends with).
			$id = (int) $_GET['booking'];
			update_post_meta( $id, 'wp_travel_engine_booking_status', sanitize_key( $_GET['status'] ) );
			wp_update_post( array( 'ID' => $id ) );
			do_action( 'wptravelengine.booking.updated', array( 'id' => $id ), null );
			exit( 'ok' );
		case 'trash':
			wp_trash_post( (int) $_GET['post'] );
			exit( 'ok' );
	}
}

/** A copy of a meta value with the source e-mail replaced. */
function waypost_test_swap( $value, array $map ) {
	if ( is_array( $value ) ) {
		foreach ( $value as $k => $v ) {
			$value[ $k ] = waypost_test_swap( $v, $map );
		}
		return $value;
	}
	return is_string( $value ) ? strtr( $value, $map ) : $value;
}

function waypost_test_checkout( $from, $email ) {
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
	update_post_meta( $booking_id, 'billing_info', waypost_test_swap( $billing, $map ) );
	update_post_meta( $booking_id, 'order_trips', $meta( $from, 'order_trips' ) );
	// ... its title set (save_post fires again), still without cart_info, paid_amount or due_amount ...
	wp_update_post( array( 'ID' => $booking_id, 'post_title' => $billing['fname'] . ' ' . $billing['lname'] . ' #' . $booking_id, 'post_status' => 'publish' ) );
	usleep( 50000 );
	// ... then the amounts and cart_info.
	update_post_meta( $booking_id, 'wp_travel_engine_booking_status', 'reserved' );
	update_post_meta( $booking_id, 'paid_amount', 0 );
	update_post_meta( $booking_id, 'due_amount', $meta( $from, 'cart_info' )['total'] );
	update_post_meta( $booking_id, 'cart_info', $meta( $from, 'cart_info' ) );
	update_post_meta( $booking_id, 'trip_datetime', $meta( $from, 'trip_datetime' ) );
	update_post_meta( $booking_id, 'wp_travel_engine_booking_setting', waypost_test_swap( $meta( $from, 'wp_travel_engine_booking_setting' ), $map ) );
	// Billing and travellers from the checkout form.
	update_post_meta( $booking_id, 'wptravelengine_billing_details', waypost_test_swap( $meta( $from, 'wptravelengine_billing_details' ), $map ) );
	update_post_meta( $booking_id, 'wptravelengine_travelers_details', waypost_test_swap( $meta( $from, 'wptravelengine_travelers_details' ), $map ) );
	// process_customer(): a new customer post (title = e-mail).
	$customer_id = wp_insert_post( array( 'post_type' => 'customer', 'post_status' => 'publish', 'post_title' => $email ) );
	update_post_meta( $customer_id, 'wptravelengine_traveller_details', array( waypost_test_swap( $meta( $from, 'wptravelengine_travelers_details' )[0], $map ) ) );
	update_post_meta( $customer_id, 'wp_travel_engine_bookings', array( $booking_id ) );
	// create_payment(): the payment post is published before its meta; the booking lists it.
	$payment_id = wp_insert_post( array( 'post_type' => 'wte-payments', 'post_status' => 'publish', 'post_title' => 'Payment for booking #' . $booking_id ) );
	update_post_meta( $booking_id, 'payments', array( $payment_id ) );
	// wptravelengine_after_booking_created fires before the payment's meta are saved.
	do_action( 'wptravelengine_after_booking_created', $booking_id );
	usleep( 50000 );
	update_post_meta( $customer_id, 'wp_travel_engine_booking_setting', waypost_test_swap( $meta( $src_cust, 'wp_travel_engine_booking_setting' ), $map ) );
	foreach ( array( 'cart_totals', 'payable', 'payment_gateway', 'billing_info', 'payment_source', 'is_due_payment', 'payment_key' ) as $key ) {
		update_post_meta( $payment_id, $key, waypost_test_swap( $meta( $src_payment, $key ), $map ) );
	}
	update_post_meta( $payment_id, 'booking_id', $booking_id );
	update_post_meta( $payment_id, 'payment_status', 'pending' );
	// payment_gateway_process(): the gateway takes the money.
	update_post_meta( $payment_id, 'payment_status', 'completed' );
	update_post_meta( $payment_id, 'payment_amount', $meta( $src_payment, 'payment_amount' ) );
	update_post_meta( $payment_id, 'transaction_id', 'TEST-' . $payment_id );
	update_post_meta( $payment_id, 'transaction_date', current_time( 'mysql' ) );
	// Complete.
	do_action( 'wp_travel_engine_after_booking_process_completed', $booking_id );
	header( 'X-Waypost-Test: booking=' . $booking_id . '; customer=' . $customer_id . '; payment=' . $payment_id );
	wp_safe_redirect( home_url( '/thank-you/?booking=' . $booking_id ) );
	exit;
}
`;

// ------------------------------------------------------------------------------------------------ the proxy

interface Sent {
  method: string;
  path: string;
  body: any;
  status: number;
  at: number;
}

/** A TCP front for Waypost: forwards and records HTTP requests, or plays down (port closed) or hanging. */
class WaypostFront {
  mode: 'forward' | 'hang' = 'forward';
  sent: Sent[] = [];
  port = 0;
  private net: NetServer | null = null;
  private readonly http: HttpServer;
  private readonly sockets = new Set<Socket>();

  /** When set, answers instead of Waypost (and the answer is recorded like Waypost's). */
  answer: ((method: string, path: string) => { status: number; body: unknown } | null) | null = null;

  constructor(private readonly target: string) {
    this.http = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const own = this.answer?.(req.method!, req.url!);
        if (own) {
          this.sent.push({ method: req.method!, path: req.url!, body: raw.length ? JSON.parse(raw.toString('utf8')) : null, status: own.status, at: Date.now() });
          res.writeHead(own.status, { 'content-type': 'application/problem+json' }).end(JSON.stringify(own.body));
          return;
        }
        const upstream = httpRequest(`${this.target}${req.url}`, { method: req.method, headers: { ...req.headers, host: new URL(this.target).host } }, (up: IncomingMessage) => {
          const out: Buffer[] = [];
          up.on('data', (c: Buffer) => out.push(c));
          up.on('end', () => {
            this.sent.push({ method: req.method!, path: req.url!, body: raw.length ? JSON.parse(raw.toString('utf8')) : null, status: up.statusCode!, at: Date.now() });
            res.writeHead(up.statusCode!, up.headers).end(Buffer.concat(out));
          });
        });
        upstream.on('error', () => res.destroy());
        upstream.end(raw);
      });
    });
  }

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Listens (again, on the same port once it has one). */
  async up(): Promise<void> {
    this.net = createNetServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
      if (this.mode === 'hang') return; // Accepted, never answered.
      this.http.emit('connection', socket);
    });
    await new Promise<void>((resolve, reject) => {
      this.net!.once('error', reject);
      this.net!.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (this.net.address() as AddressInfo).port;
  }

  /** Closes the port (connections are refused) and drops open connections. */
  async down(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    if (this.net) await new Promise<void>((resolve) => this.net!.close(() => resolve()));
    this.net = null;
  }

  puts(resource?: string) {
    return this.sent.filter((s) => s.method === 'PUT' && (!resource || s.path.startsWith(`/host/v1/${resource}/`)));
  }
}

// ------------------------------------------------------------------------------------------------ the suite

describe.runIf(await hasWordPress())('WordPress bridge: forwarding a WP Travel Engine checkout', () => {
  let waypost: Waypost;
  let receiver: Receiver;
  let front: WaypostFront;
  let site: WordPress;
  // Whole request as the client sees it, and the bridge's own time at shutdown (measured inside PHP), per scenario.
  const timings: Record<string, number[]> = { off: [], up: [], down: [], hang: [], cooldown: [] };
  const shutdown: Record<string, number[]> = { off: [], up: [], down: [], hang: [], cooldown: [] };

  beforeAll(async () => {
    receiver = await startReceiver();
    waypost = await testWaypost({ config: { port: 0, host: '127.0.0.1', allowPrivateTargets: true, pollMs: 50, retryDelaysMs: [50, 50, 50, 50] } });
    await addWebhook(waypost.core, receiver.url);
    const { url } = await waypost.serve('all');
    front = new WaypostFront(url!);
    await front.up();
    site = await startWordPress({
      fixture: 'wpte-6.8.0',
      plugins: [BRIDGE_DIR],
      // WP-Cron is run by the test (the hook, through php()), never by a page view in the middle of a test.
      constants: { WAYPOST_URL: front.url, WAYPOST_HOST_TOKEN: TOKEN, DISABLE_WP_CRON: true },
    });
    await mkdir(path.join(site.dir, 'wp-content/mu-plugins'), { recursive: true });
    await writeFile(path.join(site.dir, 'wp-content/mu-plugins/waypost-test-checkout.php'), CHECKOUT_PLUGIN);
  }, 120_000);

  afterAll(async () => {
    if (timings.off.length) {
      const base = median(timings.off);
      const rows = Object.keys(timings).filter((k) => timings[k].length).map((k) => `  ${k.padEnd(9)} n=${timings[k].length}  request ${median(timings[k]).toFixed(0)} ms (${k === 'off' ? 'baseline' : `${median(timings[k]) - base >= 0 ? '+' : ''}${(median(timings[k]) - base).toFixed(0)} ms`}), bridge at shutdown ${median(shutdown[k]).toFixed(1)} ms (max ${Math.max(...shutdown[k]).toFixed(1)})`);
      console.log(`\ncheckout request durations, medians (forwarding off / Waypost up / down / hanging / cool-down after a timeout):\n${rows.join('\n')}`);
    }
    await site?.close();
    await front?.down();
    await waypost?.close();
    await receiver?.close();
  });

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

  /** One checkout over HTTP; resolves when the response has fully arrived (php -S closes after shutdown). */
  async function checkout(email: string, options: { off?: boolean } = {}) {
    const started = performance.now();
    const res = await fetch(`${site.url}/?waypost_test=checkout&from=${FROM}&email=${encodeURIComponent(email)}${options.off ? '&waypost_off=1' : ''}`, { redirect: 'manual' });
    await res.arrayBuffer();
    const ms = performance.now() - started;
    expect(res.status).toBe(302);
    const ids = Object.fromEntries((res.headers.get('x-waypost-test') ?? '').split(';').map((p) => p.trim().split('=')).map(([k, v]) => [k, Number(v)]));
    const line = (await readFile(path.join(site.dir, '.waypost-flush-ms'), 'utf8').catch(() => '')).split('\n').find((l) => l.startsWith(`${email} `));
    const shutdownMs = line ? Number(line.split(' ')[1]) : NaN;
    return { ms, shutdownMs, end: Date.now(), booking: ids.booking, customer: ids.customer, payment: ids.payment };
  }

  /** Records a checkout's durations under a scenario. */
  const timed = <T extends { ms: number; shutdownMs: number }>(scenario: string, c: T): T => {
    timings[scenario].push(c.ms);
    shutdown[scenario].push(c.shutdownMs);
    return c;
  };

  const queueCount = async () => Number((await site.php('echo Waypost_Bridge_Queue::count();')).trim());
  const queueRows = async () => JSON.parse(await site.php(`global $wpdb; echo wp_json_encode( $wpdb->get_results( "SELECT resource, record_id, op, attempts, next_attempt_at, last_error FROM {$wpdb->prefix}waypost_queue ORDER BY id", ARRAY_A ) );`)) as Array<{ resource: string; record_id: string; op: string; attempts: string; next_attempt_at: string | null; last_error: string | null }>;
  /** Time passes: every queued row becomes due. */
  const makeDue = () => site.sql("UPDATE wp_waypost_queue SET next_attempt_at = '2000-01-01 00:00:00' WHERE next_attempt_at IS NOT NULL");
  const runCron = () => site.php("do_action( 'waypost_bridge_retry_queue' );");
  const events = (bookingOrCustomer: (data: any) => boolean) => receiver.requests
    .map((r) => JSON.parse(r.raw.toString('utf8')))
    .filter((e) => bookingOrCustomer(e.data));

  it('creates the queue table on activation, and on the next request for a plugin copied in without activation', async () => {
    expect((await site.sql("SHOW TABLES LIKE 'wp_waypost_queue'")).trim()).toBe('wp_waypost_queue');
    const columns = (await site.sql('SHOW COLUMNS FROM wp_waypost_queue')).split('\n').map((l) => l.split('\t')[0]).filter(Boolean);
    expect(columns).toEqual(expect.arrayContaining(['id', 'resource', 'record_id', 'op', 'attempts', 'next_attempt_at', 'last_error', 'created_at']));

    await site.sql("DROP TABLE wp_waypost_queue; DELETE FROM wp_options WHERE option_name = 'waypost_bridge_queue_schema';");
    await (await fetch(`${site.url}/`)).arrayBuffer(); // Any request: plugins_loaded sees no schema version.
    expect((await site.sql("SHOW TABLES LIKE 'wp_waypost_queue'")).trim()).toBe('wp_waypost_queue');
    expect((await site.sql("SELECT option_value FROM wp_options WHERE option_name = 'waypost_bridge_queue_schema'")).trim()).toBe('1');
  });

  it('measures a checkout with forwarding against the same checkout with forwarding off', async () => {
    for (let i = 0; i < 2; i++) await checkout(`warmup${i}@example.org`, { off: true }); // PHP and MariaDB caches.
    expect(front.sent).toHaveLength(0); // Off means off.
    for (let i = 0; i < 6; i++) {
      timed('off', await checkout(`baseline${i}@example.org`, { off: true }));
      timed('up', await checkout(`measured${i}@example.org`));
    }
    expect(front.puts('bookings')).toHaveLength(6);
    expect(median(timings.up)).toBeLessThan(median(timings.off) + 500);
    expect(Math.max(...shutdown.up)).toBeLessThan(TIMEOUT_MS);
    expect(Math.max(...shutdown.off)).toBeLessThan(5);
    expect(await queueCount()).toBe(0);
  });

  it('sends each record of a checkout once, complete, at the end of the request; the receiver gets booking.created', async () => {
    const sentBefore = front.sent.length;
    const c = await checkout('zoe@example.org');
    const sent = front.sent.slice(sentBefore);

    // Exactly one write per record, all accepted, nothing deleted, in the order customer, payment, booking.
    expect(sent.map((s) => `${s.method} ${s.path} ${s.status}`)).toEqual([
      `PUT /host/v1/customers/${c.customer} 201`,
      `PUT /host/v1/payments/${c.payment} 201`,
      `PUT /host/v1/bookings/${c.booking} 201`,
    ]);
    // Within the request (php -S ends the response after shutdown) and within 2 s of its end at the latest.
    for (const s of sent) expect(s.at).toBeLessThanOrEqual(c.end + 2000);

    // Never half-written: the one booking body has the cart, the trip, the customer and the paid amount.
    const booking = sent[2].body;
    expect(booking).toMatchObject({
      status: 'reserved', currency: 'EUR', total_amount: '160.00', paid_amount: '160.00', due_amount: '0.00',
      cart_version: '4.0', customer: { id: c.customer, email: 'zoe@example.org', first_name: 'Anna', last_name: 'Schmidt' },
    });
    expect(booking.trips).toHaveLength(1);
    expect(booking.trips[0]).toMatchObject({ trip_id: 25, travellers: 2 });
    expect(booking.trips[0].line_items.length).toBeGreaterThan(0);
    expect(sent[1].body).toMatchObject({ booking_id: c.booking, status: 'completed', amount: '160.00', currency: 'EUR', transaction_id: `TEST-${c.payment}` });
    expect(sent[0].body).toMatchObject({ email: 'zoe@example.org' });

    // The receiver: customer.created, booking.payment.completed and booking.created with the complete booking.
    await expect.poll(() => events((d) => d.id === c.booking || d.booking_id === c.booking || d.id === c.customer).length, { timeout: 10_000 }).toBe(3);
    const got = events((d) => d.id === c.booking || d.booking_id === c.booking || d.id === c.customer);
    expect(got.map((e) => e.type).sort()).toEqual(['booking.created', 'booking.payment.completed', 'customer.created']);
    const created = got.find((e) => e.type === 'booking.created')!;
    expect(created.data).toMatchObject({
      id: c.booking, status: 'reserved', total_amount: '160.00', paid_amount: '160.00', due_amount: '0.00',
      cart_version: '4.0', data_complete: true, payment_ids: [c.payment],
      customer: { id: c.customer, email: 'zoe@example.org' },
    });
    expect(created.data.trips[0].line_items.length).toBeGreaterThan(0);
    expect(await queueCount()).toBe(0);
  });

  it('sends nothing for a checkout that stopped half-way (the empty booking post), and never deletes it', async () => {
    const sentBefore = front.sent.length;
    const res = await fetch(`${site.url}/?waypost_test=abandoned`);
    await res.arrayBuffer();
    expect(res.headers.get('x-waypost-test')).toMatch(/^booking=\d+$/);
    expect(front.sent.slice(sentBefore)).toEqual([]);
    expect(await queueCount()).toBe(0);
  });

  it('sends an admin edit (wptravelengine.booking.updated) and a trashed booking as a DELETE', async () => {
    const c = await checkout('yusuf@example.org');
    let sentBefore = front.sent.length;
    await (await fetch(`${site.url}/?waypost_test=admin_update&booking=${c.booking}&status=booked`)).text();
    const update = front.sent.slice(sentBefore).filter((s) => s.path === `/host/v1/bookings/${c.booking}`);
    expect(update.map((s) => [s.method, s.status, s.body.status])).toEqual([['PUT', 200, 'booked']]);
    await expect.poll(() => events((d) => d.id === c.booking).map((e) => e.type), { timeout: 10_000 }).toContain('booking.updated');

    sentBefore = front.sent.length;
    await (await fetch(`${site.url}/?waypost_test=trash&post=${c.booking}`)).text();
    expect(front.sent.slice(sentBefore).map((s) => `${s.method} ${s.path} ${s.status}`)).toEqual([`DELETE /host/v1/bookings/${c.booking} 204`]);
    expect(await waypost.delete('bookings', c.booking)).toBe(false); // Already gone from Waypost.
    expect(await queueCount()).toBe(0);
  });

  it('forwards a review when approved and deletes it when unapproved (comments on trips)', async () => {
    const sentBefore = front.sent.length;
    const id = Number((await site.php(`echo wp_insert_comment( array( 'comment_post_ID' => 25, 'comment_author' => 'Mia', 'comment_author_email' => 'mia@example.org', 'comment_content' => 'Lovely day.', 'comment_approved' => 0 ) );`)).trim());
    expect(front.sent.slice(sentBefore)).toEqual([]); // Held for moderation: not a review yet.
    await site.php(`wp_set_comment_status( ${id}, 'approve' );`);
    await site.php(`wp_set_comment_status( ${id}, 'hold' );`);
    expect(front.sent.slice(sentBefore).map((s) => `${s.method} ${s.path} ${s.status}`)).toEqual([
      `PUT /host/v1/reviews/${id} 201`,
      `DELETE /host/v1/reviews/${id} 204`,
    ]);
    expect(front.sent[sentBefore].body).toMatchObject({ trip_id: 25, author_name: 'Mia', content: 'Lovely day.' });
  });

  it('queues the writes while Waypost is down (port closed), keeps one row per record with its latest state, and sends them in order once it is up and WP-Cron runs', async () => {
    await front.down();
    const c = timed('down', await checkout('xena@example.org'));
    for (let i = 0; i < 2; i++) timed('down', await checkout(`down${i}@example.org`));
    expect(c.ms).toBeLessThan(median(timings.off) + TIMEOUT_MS + MARGIN_MS);
    expect(Math.max(...shutdown.down)).toBeLessThan(500); // A refused connection costs nothing to wait for.

    const rows = (await queueRows()).filter((r) => [c.booking, c.customer, c.payment].includes(Number(r.record_id)));
    expect(rows.map((r) => `${r.op} ${r.resource} ${r.record_id}`)).toEqual([
      `put customers ${c.customer}`, `put payments ${c.payment}`, `put bookings ${c.booking}`,
    ]);
    expect(rows[0].last_error).toMatch(/did not answer/i);
    // The whole request's records wait together: the retry is 1 minute away.
    const due = rows.map((r) => Date.parse(`${r.next_attempt_at}Z`));
    expect(new Set(due).size).toBe(1);
    expect(due[0]).toBeGreaterThan(Date.now() + 30_000);

    // A newer state while still down (the admin marks it booked): the booking's row is replaced, not added.
    await (await fetch(`${site.url}/?waypost_test=admin_update&booking=${c.booking}&status=booked`)).text();
    const after = (await queueRows()).filter((r) => Number(r.record_id) === c.booking && r.resource === 'bookings');
    expect(after).toHaveLength(1);

    // Waypost is back; WP-Cron before the backoff has passed sends nothing.
    await front.up();
    const sentBefore = front.sent.length;
    await runCron();
    expect(front.sent.length).toBe(sentBefore);

    // Time passes; WP-Cron retries: everything arrives, in order, in its latest state, once.
    await makeDue();
    await runCron();
    const sent = front.sent.slice(sentBefore);
    const mine = sent.filter((s) => [`/host/v1/customers/${c.customer}`, `/host/v1/payments/${c.payment}`, `/host/v1/bookings/${c.booking}`].includes(s.path));
    expect(mine.map((s) => `${s.method} ${s.path} ${s.status}`)).toEqual([
      `PUT /host/v1/customers/${c.customer} 201`,
      `PUT /host/v1/payments/${c.payment} 201`,
      `PUT /host/v1/bookings/${c.booking} 201`,
    ]);
    expect(mine[2].body).toMatchObject({ status: 'booked', cart_version: '4.0', paid_amount: '160.00' });
    expect(sent.every((s) => s.status < 300)).toBe(true);
    expect(await queueCount()).toBe(0);
    await expect.poll(() => events((d) => d.id === c.booking).map((e) => e.type), { timeout: 10_000 }).toEqual(['booking.created']);
    expect(events((d) => d.id === c.booking)[0].data).toMatchObject({ status: 'booked', payment_ids: [c.payment], data_complete: true });
  });

  it('delays a checkout by at most the timeout when Waypost hangs, then stops waiting for it until it answers again', async () => {
    front.mode = 'hang';
    await front.down();
    await front.up();
    const c = timed('hang', await checkout('wanda@example.org'));
    expect(c.ms).toBeLessThan(median(timings.off) + TIMEOUT_MS + MARGIN_MS);
    expect(c.shutdownMs).toBeLessThan(TIMEOUT_MS + 300);
    expect(c.shutdownMs).toBeGreaterThan(TIMEOUT_MS * 0.9); // It did wait for Waypost, once.
    const rows = await queueRows();
    expect(rows.map((r) => `${r.resource} ${r.record_id}`)).toEqual([`customers ${c.customer}`, `payments ${c.payment}`, `bookings ${c.booking}`]);
    expect(rows[0].last_error).toMatch(/did not answer/i);

    // During the cool-down the next checkouts do not wait at all.
    for (let i = 0; i < 3; i++) timed('cooldown', await checkout(`cool${i}@example.org`));
    expect(Math.max(...shutdown.cooldown)).toBeLessThan(200);
    expect(await queueCount()).toBe(3 * 4);

    // Waypost answers again: the queue drains (and the cool-down ends).
    front.mode = 'forward';
    await front.down();
    await front.up();
    await makeDue();
    await runCron();
    expect(await queueCount()).toBe(0);
    expect(front.puts('bookings').filter((s) => s.path === `/host/v1/bookings/${c.booking}`)).toHaveLength(1);
    const next = await checkout('vera@example.org');
    expect(front.puts('bookings').filter((s) => s.path === `/host/v1/bookings/${next.booking}`)).toHaveLength(1);
    expect(await queueCount()).toBe(0);
  });

  it('parks a record Waypost refuses (4xx) with its error instead of retrying it forever', async () => {
    const id = Number((await site.php(`echo wp_insert_comment( array( 'comment_post_ID' => 25, 'comment_author' => 'Noor', 'comment_content' => 'ok', 'comment_approved' => 1 ) );`)).trim());
    expect(front.sent.at(-1)).toMatchObject({ method: 'PUT', path: `/host/v1/reviews/${id}`, status: 201 });

    // Waypost refuses the next write of it (any 4xx other than 401, 408, 409, 425, 429).
    const before = front.sent.length;
    front.answer = (method, p) => (p === `/host/v1/reviews/${id}` ? { status: 400, body: { status: 400, code: 'invalid_field', detail: 'content is too long' } } : null);
    try {
      await site.php(`wp_update_comment( array( 'comment_ID' => ${id}, 'comment_content' => 'changed' ) );`);
      expect(front.sent.slice(before).map((s) => s.status)).toEqual([400]);
      const rows = await queueRows();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ resource: 'reviews', record_id: String(id), attempts: '1', next_attempt_at: null });
      expect(rows[0].last_error).toMatch(/400.*content is too long/);
      await makeDue();
      await runCron();
      expect(front.sent.slice(before)).toHaveLength(1); // Parked: WP-Cron does not retry it.
    } finally {
      front.answer = null;
    }
    // "Retry now" (or a newer state of the record) sends it again.
    const result = JSON.parse(await site.php('echo wp_json_encode( Waypost_Bridge_Queue::retry_now() );'));
    expect(result).toMatchObject({ sent: 1, remaining: 0 });
    expect(front.sent.at(-1)).toMatchObject({ method: 'PUT', path: `/host/v1/reviews/${id}`, status: 200 });
    expect(front.sent.at(-1)!.body).toMatchObject({ content: 'changed' });
  });
});
