<?php
/**
 * Plugin Name: Waypost bench: WP Travel Engine checkout replay
 * Description: Benchmark only (bench/bridge/checkout.ts). Replays WP Travel Engine 6.8.0's checkout write order with
 * meta copied from a fixture booking (as test/bridge/forwarding.test.ts does), and points the bridge at Waypost, a
 * closed port or a server that never answers, per request.
 */

// Where the bridge sends, per request (mu-plugins load before plugins; the bridge reads the constant when it sends).
if ( ! defined( 'WAYPOST_URL' ) ) {
	$waypost_bench_targets = array( 'up' => '{{up}}', 'down' => '{{down}}', 'hang' => '{{hang}}' );
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
