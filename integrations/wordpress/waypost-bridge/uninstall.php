<?php
/**
 * Plugins > Delete: removes everything the plugin made, on every site of a network: the retry queue table, the
 * options (connection, encrypted token, queue schema, backfill state and lock, cool-down), its transients and its
 * WP-Cron events. Waypost keeps what it was sent; nothing is sent from here.
 *
 * WordPress runs this file on its own (the plugin's other files are not loaded), so the names are spelled out here.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'WP_UNINSTALL_PLUGIN' ) ) {
	exit;
}

/**
 * Removes the plugin's data from the current site.
 */
function waypost_bridge_uninstall_site() {
	global $wpdb;
	$table = $wpdb->prefix . 'waypost_queue';
	// phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared,WordPress.DB.DirectDatabaseQuery
	$wpdb->query( "DROP TABLE IF EXISTS {$table}" );
	$options = array(
		'waypost_bridge_url',
		'waypost_bridge_token',
		'waypost_bridge_token_origin',
		'waypost_bridge_queue_schema',
		'waypost_bridge_unreachable_until',
		'waypost_bridge_backfill',
		'waypost_bridge_backfill_lock',
	);
	foreach ( $options as $option ) {
		delete_option( $option );
	}
	// Per-user notices (waypost_bridge_notice_<user id>) and anything else under the prefix.
	$wpdb->query( // phpcs:ignore WordPress.DB.DirectDatabaseQuery
		$wpdb->prepare(
			"DELETE FROM {$wpdb->options} WHERE option_name LIKE %s OR option_name LIKE %s OR option_name LIKE %s",
			$wpdb->esc_like( 'waypost_bridge_' ) . '%',
			$wpdb->esc_like( '_transient_waypost_bridge_' ) . '%',
			$wpdb->esc_like( '_transient_timeout_waypost_bridge_' ) . '%'
		)
	);
	$hooks = array(
		'waypost_bridge_retry_queue',
		'waypost_bridge_retry_queue_hourly',
		'waypost_bridge_backfill_continue',
	);
	foreach ( $hooks as $hook ) {
		wp_unschedule_hook( $hook );
	}
	wp_cache_delete( 'alloptions', 'options' ); // The LIKE above went past the options cache.
}

if ( is_multisite() ) {
	foreach ( get_sites( array( 'fields' => 'ids', 'number' => 0 ) ) as $waypost_bridge_site ) {
		switch_to_blog( (int) $waypost_bridge_site );
		waypost_bridge_uninstall_site();
		restore_current_blog();
	}
} else {
	waypost_bridge_uninstall_site();
}
