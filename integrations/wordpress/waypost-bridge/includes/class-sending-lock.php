<?php
/**
 * The backfill's sending lock: held while a batch runs, so the settings page, WP-Cron and the CLI never send at
 * once. A row in the options table, taken with INSERT IGNORE.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * One backfill sender at a time.
 */
class Waypost_Bridge_Sending_Lock {

	/** The option that is the lock; its value is the Unix time it was taken. */
	public const OPTION = 'waypost_bridge_backfill_lock';

	/**
	 * Takes the sending lock (a stale one, older than 10 minutes, is taken over).
	 *
	 * @return bool
	 */
	public static function take(): bool {
		global $wpdb;
		// INSERT IGNORE: of two processes at once exactly one inserts (add_option() upserts, so both could "win").
		$insert = "INSERT IGNORE INTO {$wpdb->options} (option_name, option_value, autoload) VALUES (%s, %s, 'no')";
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.NotPrepared
		if ( 1 === (int) $wpdb->query( $wpdb->prepare( $insert, self::OPTION, (string) time() ) ) ) {
			return true;
		}
		$select = "SELECT option_value FROM {$wpdb->options} WHERE option_name = %s";
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.NotPrepared
		$since  = (int) $wpdb->get_var( $wpdb->prepare( $select, self::OPTION ) );
		if ( $since > 0 && time() - $since < 600 ) {
			return false;
		}
		// A stale lock (its holder died): take it over, unless another process just did.
		$update = "UPDATE {$wpdb->options} SET option_value = %s WHERE option_name = %s AND option_value = %s";
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.NotPrepared
		$taken  = $wpdb->query( $wpdb->prepare( $update, (string) time(), self::OPTION, (string) $since ) );
		return 1 === (int) $taken;
	}

	/** Releases the sending lock. */
	public static function release(): void {
		global $wpdb;
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery
		$wpdb->delete( $wpdb->options, array( 'option_name' => self::OPTION ) );
		wp_cache_delete( self::OPTION, 'options' );
	}
}
