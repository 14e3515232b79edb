<?php
// WP Travel Engine 6.8.0's checkout, replayed from a fixture booking's meta: shared by the tests' checkout plugin
// (test/bridge/checkout-plugin.php) and the benchmark's (bench/bridge/checkout-mu-plugin.php), which each get this
// appended when they are installed as a mu-plugin (test/bridge/forwarding-site.ts, bench/bridge/php.ts).

/** A copy of a meta value with the source e-mail replaced. */
function waypost_replay_swap( $value, array $map ) {
	if ( is_array( $value ) ) {
		foreach ( $value as $k => $v ) {
			$value[ $k ] = waypost_replay_swap( $v, $map );
		}
		return $value;
	}
	return is_string( $value ) ? strtr( $value, $map ) : $value;
}

/**
 * Replays WP Travel Engine 6.8.0's checkout write order for a copy of booking $from with the e-mail $email, pausing
 * $pause_us microseconds where a real checkout does slower work (the tests' forwarding needs the gaps; the benchmark
 * gives 0). Answers with the new ids in the $header response header, then redirects to the thank-you page.
 */
function waypost_replay_checkout( $from, $email, $pause_us, $header ) {
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
	update_post_meta( $booking_id, 'billing_info', waypost_replay_swap( $billing, $map ) );
	update_post_meta( $booking_id, 'order_trips', $meta( $from, 'order_trips' ) );
	// ... its title set (save_post fires again), still without cart_info, paid_amount or due_amount ...
	wp_update_post( array( 'ID' => $booking_id, 'post_title' => $billing['fname'] . ' ' . $billing['lname'] . ' #' . $booking_id, 'post_status' => 'publish' ) );
	if ( $pause_us > 0 ) {
		usleep( $pause_us );
	}
	// ... then the amounts and cart_info.
	update_post_meta( $booking_id, 'wp_travel_engine_booking_status', 'reserved' );
	update_post_meta( $booking_id, 'paid_amount', 0 );
	update_post_meta( $booking_id, 'due_amount', $meta( $from, 'cart_info' )['total'] );
	update_post_meta( $booking_id, 'cart_info', $meta( $from, 'cart_info' ) );
	update_post_meta( $booking_id, 'trip_datetime', $meta( $from, 'trip_datetime' ) );
	update_post_meta( $booking_id, 'wp_travel_engine_booking_setting', waypost_replay_swap( $meta( $from, 'wp_travel_engine_booking_setting' ), $map ) );
	// Billing and travellers from the checkout form.
	update_post_meta( $booking_id, 'wptravelengine_billing_details', waypost_replay_swap( $meta( $from, 'wptravelengine_billing_details' ), $map ) );
	update_post_meta( $booking_id, 'wptravelengine_travelers_details', waypost_replay_swap( $meta( $from, 'wptravelengine_travelers_details' ), $map ) );
	// process_customer(): a new customer post (title = e-mail).
	$customer_id = wp_insert_post( array( 'post_type' => 'customer', 'post_status' => 'publish', 'post_title' => $email ) );
	update_post_meta( $customer_id, 'wptravelengine_traveller_details', array( waypost_replay_swap( $meta( $from, 'wptravelengine_travelers_details' )[0], $map ) ) );
	update_post_meta( $customer_id, 'wp_travel_engine_bookings', array( $booking_id ) );
	// create_payment(): the payment post is published before its meta; the booking lists it.
	$payment_id = wp_insert_post( array( 'post_type' => 'wte-payments', 'post_status' => 'publish', 'post_title' => 'Payment for booking #' . $booking_id ) );
	update_post_meta( $booking_id, 'payments', array( $payment_id ) );
	// wptravelengine_after_booking_created fires before the payment's meta are saved.
	do_action( 'wptravelengine_after_booking_created', $booking_id );
	if ( $pause_us > 0 ) {
		usleep( $pause_us );
	}
	update_post_meta( $customer_id, 'wp_travel_engine_booking_setting', waypost_replay_swap( $meta( $src_cust, 'wp_travel_engine_booking_setting' ), $map ) );
	foreach ( array( 'cart_totals', 'payable', 'payment_gateway', 'billing_info', 'payment_source', 'is_due_payment', 'payment_key' ) as $key ) {
		update_post_meta( $payment_id, $key, waypost_replay_swap( $meta( $src_payment, $key ), $map ) );
	}
	update_post_meta( $payment_id, 'booking_id', $booking_id );
	update_post_meta( $payment_id, 'payment_status', 'pending' );
	// payment_gateway_process(): the gateway takes the money.
	update_post_meta( $payment_id, 'payment_status', 'completed' );
	update_post_meta( $payment_id, 'payment_amount', $meta( $src_payment, 'payment_amount' ) );
	update_post_meta( $payment_id, 'transaction_id', 'REPLAY-' . $payment_id );
	update_post_meta( $payment_id, 'transaction_date', current_time( 'mysql' ) );
	// Complete.
	do_action( 'wp_travel_engine_after_booking_process_completed', $booking_id );
	header( $header . ': booking=' . $booking_id . '; customer=' . $customer_id . '; payment=' . $payment_id );
	wp_safe_redirect( home_url( '/thank-you/?booking=' . $booking_id ) );
	exit;
}
