<?php
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
