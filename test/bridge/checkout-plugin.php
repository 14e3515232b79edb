<?php
/**
 * Plugin Name: Waypost test: WP Travel Engine checkout replay
 * Description: Test only. Replays WP Travel Engine 6.8.0's checkout write order with meta copied from a fixture booking
 * (checkout-replay.php, appended when installed).
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
			waypost_replay_checkout( (int) $_GET['from'], sanitize_email( wp_unslash( $_GET['email'] ) ), 50000, 'X-Waypost-Test' );
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
