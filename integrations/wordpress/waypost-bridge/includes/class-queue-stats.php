<?php
/**
 * What the settings page, `wp waypost status` and the identity headers say about the retry queue: how many rows
 * wait, how many are parked, the oldest, the latest error, the next due time. Read-only queries on the queue's table.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Counts and summaries of the queue table.
 */
class Waypost_Bridge_Queue_Stats {

	/** Number of queued rows (waiting for a retry, or parked after a refusal). */
	public static function count(): int {
		global $wpdb;
		$table = Waypost_Bridge_Queue::table();
		// phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		return (int) $wpdb->get_var( "SELECT COUNT(*) FROM {$table}" );
	}

	/** Number of parked rows (refused by Waypost; retried only on "Retry now" or a newer state). */
	public static function parked_count(): int {
		global $wpdb;
		$table = Waypost_Bridge_Queue::table();
		// phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		return (int) $wpdb->get_var( "SELECT COUNT(*) FROM {$table} WHERE next_attempt_at IS NULL" );
	}

	/**
	 * The oldest queued change: array{resource, record_id, created_at (UTC 'Y-m-d H:i:s'), age (seconds)} or null.
	 */
	public static function oldest(): ?array {
		global $wpdb;
		$table = Waypost_Bridge_Queue::table();
		$sql   = "SELECT resource, record_id, created_at FROM {$table} ORDER BY created_at ASC, id ASC LIMIT 1";
		$row   = $wpdb->get_row( $sql, ARRAY_A ); // phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared
		if ( ! $row ) {
			return null;
		}
		$row['record_id'] = (int) $row['record_id'];
		$row['age']       = max( 0, time() - (int) strtotime( $row['created_at'] . ' UTC' ) );
		return $row;
	}

	/**
	 * The most recent error among queued rows: array{error, resource, record_id, attempts, at, next_attempt_at}, or
	 * null.
	 */
	public static function last_error(): ?array {
		global $wpdb;
		$table = Waypost_Bridge_Queue::table();
		$sql   = "SELECT last_error AS error, resource, record_id, attempts, updated_at AS at, next_attempt_at
			FROM {$table} WHERE last_error IS NOT NULL AND last_error <> '' ORDER BY updated_at DESC, id DESC LIMIT 1";
		$row   = $wpdb->get_row( $sql, ARRAY_A ); // phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared
		if ( ! $row ) {
			return null;
		}
		$row['record_id'] = (int) $row['record_id'];
		$row['attempts']  = (int) $row['attempts'];
		return $row;
	}

	/** The next time a row is due (Unix time), or null when nothing waits for a retry. */
	public static function next_due(): ?int {
		global $wpdb;
		$table = Waypost_Bridge_Queue::table();
		// phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		$next  = $wpdb->get_var( "SELECT MIN(next_attempt_at) FROM {$table} WHERE next_attempt_at IS NOT NULL" );
		return $next ? (int) strtotime( $next . ' UTC' ) : null;
	}
}
