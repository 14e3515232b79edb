<?php
/**
 * Plugin Name: Waypost bench: WP Travel Engine checkout replay
 * Description: Benchmark only (bench/bridge/checkout.ts). Replays WP Travel Engine 6.8.0's checkout write order with
 * meta copied from a fixture booking (test/bridge/checkout-replay.php, appended when installed), and points the
 * bridge at Waypost, a closed port or a server that never answers, per request.
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
	waypost_replay_checkout( (int) $_GET['from'], sanitize_email( wp_unslash( $_GET['email'] ) ), 0, 'X-Waypost-Bench' );
}
