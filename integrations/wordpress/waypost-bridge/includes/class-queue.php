<?php
/**
 * The durable retry queue: writes to Waypost that could not be made at once.
 *
 * One row per record (resource + record id). A newer state of a record replaces its queued row instead of adding a
 * second one, so an older state can never be sent after a newer one; and a row holds no data, only "send this record":
 * when it is retried the record is read again from WordPress, so what is sent is always the latest state.
 *
 * WP-Cron retries the rows that are due, oldest first, with exponential backoff (1 minute doubling up to 1 hour). A
 * row that Waypost refused for good (a 4xx such as 400 or 422) is parked: it stays visible on the settings page with
 * its error but is not retried until the record changes again or an administrator presses "Retry now".
 *
 * Why a table of our own and not Action Scheduler (the job queue WooCommerce uses): its current versions need
 * WordPress 5.2 to 6.5, above this plugin's 5.0 floor, and it is not in the package sources this project can reach,
 * so it could be neither required nor bundled and kept updated. What the queue needs is small (one row per record,
 * backoff, a parked state, revision checks against a newer state), and this class does exactly that with dbDelta and a
 * schema version. Keep it so unless the floor rises to what Action Scheduler needs and it becomes reachable.
 *
 * Every statement that writes the table is here (class-queue-stats.php reads it for the page, class-queue-schema.php
 * creates it, class-queue-runner.php drives the retries); the forwarder and the sender only call these methods.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Durable queue table `{$wpdb->prefix}waypost_queue`: its rows.
 */
class Waypost_Bridge_Queue {

	/** Backoff: the first retry after 1 minute, doubling, at most 1 hour apart. */
	public const BACKOFF_MIN = 60;
	public const BACKOFF_MAX = 3600;

	/** The table's full name. */
	public static function table(): string {
		global $wpdb;
		return $wpdb->prefix . 'waypost_queue';
	}

	/**
	 * Queues (or re-queues) one record.
	 *
	 * @param string      $resource trips|customers|bookings|payments|enquiries|reviews.
	 * @param int         $id       Record id.
	 * @param string      $op       put|delete (a delete becomes a put again if the record exists when retried).
	 * @param string|null $error    Why it is queued (shown as the queue's last error).
	 * @param string      $kind     'failed': an attempt failed, back off; 'refused': Waypost refused it (4xx), park
	 *                              it; 'deferred': not attempted (Waypost known to be down, or no time left), due at
	 *                              $due (default now) without counting an attempt.
	 * @param int|null    $due      Unix time for 'deferred'.
	 * @return int|null|false When the row is due (Unix time); null when parked; false when it could not be written.
	 */
	public static function push(
		string $resource,
		int $id,
		$op = 'put',
		$error = null,
		$kind = 'failed',
		$due = null
	) {
		global $wpdb;
		$table    = self::table();
		$id       = (int) $id;
		$op       = 'delete' === $op ? 'delete' : 'put';
		$now      = time();
		$select   = "SELECT id, attempts, last_error FROM {$table} WHERE resource = %s AND record_id = %d";
		// phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared
		$existing = $wpdb->get_row( $wpdb->prepare( $select, $resource, $id ) );
		$attempts = $existing ? (int) $existing->attempts : 0;
		if ( 'deferred' === $kind ) {
			$next  = self::datetime( null === $due ? $now : max( $now, (int) $due ) );
			$error = null !== $error ? $error : ( $existing ? $existing->last_error : null );
		} else {
			++$attempts;
			$next = 'refused' === $kind ? null : self::datetime( $now + self::backoff( $attempts ) );
		}
		$stamp   = self::datetime( $now );
		$clipped = null === $error ? null : self::clip( $error );
		$values  = array( $resource, $id, $op, $attempts, $next, $clipped, $stamp, $stamp );
		$sql     = $wpdb->prepare(
			"INSERT INTO {$table}
				(resource, record_id, op, attempts, next_attempt_at, last_error, revision, created_at, updated_at)
			VALUES (%s, %d, %s, %d, " . ( null === $next ? 'NULL' : '%s' ) . ', '
				. ( null === $error ? 'NULL' : '%s' ) . ', 0, %s, %s)
			ON DUPLICATE KEY UPDATE op = VALUES(op), attempts = VALUES(attempts),
				next_attempt_at = VALUES(next_attempt_at), last_error = VALUES(last_error), revision = revision + 1,
				updated_at = VALUES(updated_at)', // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
			array_values(
				array_filter(
					$values,
					static function ( $v ) {
						return null !== $v;
					}
				)
			)
		);
		$ok = false !== $wpdb->query( $sql ); // phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared
		if ( ! $ok ) {
			self::log( "could not queue {$resource} {$id}: " . $wpdb->last_error );
			return false;
		}
		if ( null === $next ) {
			return null;
		}
		$due = (int) strtotime( $next . ' UTC' );
		Waypost_Bridge_Queue_Runner::schedule( $due );
		return $due;
	}

	/**
	 * One queued row as it is now (id, op, revision), or null when it is gone (sent meanwhile by a request).
	 *
	 * @param int $id Row id.
	 * @return object|null
	 */
	public static function row( int $id ): ?object {
		global $wpdb;
		$table = self::table();
		// phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		return $wpdb->get_row( $wpdb->prepare( "SELECT id, op, revision FROM {$table} WHERE id = %d", $id ) );
	}

	/**
	 * The revision of a record's queued row, or null. A request reads it *before* it reads the record: if its send
	 * succeeds, only that row (that revision) is dropped (forget()); a row that a later state added or replaced
	 * meanwhile stays queued.
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Record id.
	 */
	public static function revision_of( string $resource, int $id ): ?int {
		global $wpdb;
		$table = self::table();
		$sql   = "SELECT revision FROM {$table} WHERE resource = %s AND record_id = %d";
		// phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared
		$rev   = $wpdb->get_var( $wpdb->prepare( $sql, $resource, (int) $id ) );
		return null === $rev ? null : (int) $rev;
	}

	/**
	 * Drops a record's queued row if it still has the given revision (see revision_of()).
	 *
	 * @param string   $resource Resource.
	 * @param int      $id       Record id.
	 * @param int|null $revision Revision read before the send (null: there was no row; nothing to do).
	 */
	public static function forget( string $resource, int $id, ?int $revision ): void {
		global $wpdb;
		if ( null === $revision ) {
			return;
		}
		$table = self::table();
		$sql   = "DELETE FROM {$table} WHERE resource = %s AND record_id = %d AND revision = %d";
		// phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared
		$wpdb->query( $wpdb->prepare( $sql, $resource, (int) $id, $revision ) );
	}

	/**
	 * After an attempt from the queue: drop the row if it still is the one that was sent (a newer state that arrived
	 * meanwhile bumped its revision and stays queued), or record the failure.
	 *
	 * @param object      $row     The row as read (id, revision).
	 * @param string      $result  'sent'|'nothing'|'failed'|'refused'.
	 * @param string|null $error   The error.
	 */
	public static function settle( object $row, string $result, ?string $error = null ): void {
		global $wpdb;
		$table = self::table();
		if ( 'sent' === $result || 'nothing' === $result ) {
			$sql = "DELETE FROM {$table} WHERE id = %d AND revision = %d";
			// phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared
			$wpdb->query( $wpdb->prepare( $sql, (int) $row->id, (int) $row->revision ) );
			return;
		}
		$sql     = "SELECT attempts, revision FROM {$table} WHERE id = %d";
		// phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared
		$current = $wpdb->get_row( $wpdb->prepare( $sql, (int) $row->id ) );
		if ( ! $current || (int) $current->revision !== (int) $row->revision ) {
			return; // Replaced by a newer state meanwhile: that one is due on its own schedule.
		}
		$attempts = (int) $current->attempts + 1;
		$next     = 'refused' === $result ? null : self::datetime( time() + self::backoff( $attempts ) );
		$wpdb->update(
			$table,
			array(
				'attempts'        => $attempts,
				'next_attempt_at' => $next,
				'last_error'      => self::clip( (string) $error ),
				'updated_at'      => self::datetime( time() ),
			),
			array( 'id' => (int) $row->id ),
			array( '%d', '%s', '%s', '%s' ),
			array( '%d' )
		);
	}

	/**
	 * The rows due now, oldest first (the runner sends them).
	 *
	 * @param int $limit Most rows.
	 * @return object[] Rows (id, resource, record_id, op, revision).
	 */
	public static function due_rows( int $limit ): array {
		global $wpdb;
		$table = self::table();
		$sql   = "SELECT id, resource, record_id, op, revision FROM {$table}
			WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= %s ORDER BY id ASC LIMIT %d";
		// phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared
		return (array) $wpdb->get_results( $wpdb->prepare( $sql, self::datetime( time() ), $limit ) );
	}

	/**
	 * Waypost is unreachable: the rows due before this one's next attempt wait until then too (they keep their
	 * order and are not counted as attempts), instead of each waking WP-Cron on its own.
	 *
	 * @param int $id The row whose attempt found Waypost unreachable.
	 */
	public static function hold_behind( int $id ): void {
		global $wpdb;
		$table = self::table();
		// phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		$until = $wpdb->get_var( $wpdb->prepare( "SELECT next_attempt_at FROM {$table} WHERE id = %d", $id ) );
		if ( $until ) {
			$sql = "UPDATE {$table} SET next_attempt_at = %s
				WHERE next_attempt_at IS NOT NULL AND next_attempt_at < %s";
			$wpdb->query( $wpdb->prepare( $sql, $until, $until ) ); // phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared
		}
	}

	/** "Retry now": every row is due now, parked ones too. */
	public static function make_all_due(): void {
		global $wpdb;
		$table = self::table();
		// phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		$wpdb->query( $wpdb->prepare( "UPDATE {$table} SET next_attempt_at = %s", self::datetime( time() ) ) );
	}

	/**
	 * Seconds to wait after the n-th failed attempt: 60, 120, 240, … up to 3600.
	 *
	 * @param int $attempts Failed attempts so far (1 or more).
	 */
	public static function backoff( int $attempts ): int {
		$attempts = max( 1, (int) $attempts );
		return (int) min( self::BACKOFF_MAX, self::BACKOFF_MIN * pow( 2, min( 12, $attempts - 1 ) ) );
	}

	/**
	 * UTC 'Y-m-d H:i:s'.
	 *
	 * @param int $time Unix time.
	 */
	private static function datetime( int $time ): string {
		return gmdate( 'Y-m-d H:i:s', (int) $time );
	}

	/**
	 * Keeps stored errors short.
	 *
	 * @param string $error Error text.
	 */
	private static function clip( string $error ): string {
		$error = (string) $error;
		return strlen( $error ) > 1000 ? substr( $error, 0, 997 ) . '...' : $error;
	}

	/**
	 * Logs to the PHP error log.
	 *
	 * @param string $message Message.
	 */
	public static function log( string $message ): void {
		// phpcs:ignore WordPress.PHP.DevelopmentFunctions.error_log_error_log
		error_log( 'Waypost bridge: ' . $message );
	}
}
