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
 * Every SQL statement on the table is here; the forwarder and the sender only call these methods.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Durable queue table `{$wpdb->prefix}waypost_queue` and its WP-Cron worker.
 */
class Waypost_Bridge_Queue {

	/** Bump when the table definition changes; `plugins_loaded` runs dbDelta again when the stored one is older. */
	public const SCHEMA_VERSION = '1';

	public const SCHEMA_OPTION = 'waypost_bridge_queue_schema';

	/** The WP-Cron hook that retries due rows (a single event at the next due time). */
	public const CRON_HOOK = 'waypost_bridge_retry_queue';

	/** A recurring safety net, in case a single event is ever lost. */
	public const CRON_HOOK_HOURLY = 'waypost_bridge_retry_queue_hourly';

	/** Backoff: the first retry after 1 minute, doubling, at most 1 hour apart. */
	public const BACKOFF_MIN = 60;
	public const BACKOFF_MAX = 3600;

	/** One cron run sends at most this many rows and stops after this many seconds (the rest wait for the next run). */
	public const RUN_LIMIT  = 200;
	public const RUN_BUDGET = 20.0;

	/**
	 * Hooks: schema upgrade for a copied-in plugin, the cron worker and its schedule.
	 */
	public static function register(): void {
		add_action( 'plugins_loaded', array( __CLASS__, 'maybe_install' ), 1 );
		add_action( self::CRON_HOOK, array( __CLASS__, 'cron' ) );
		add_action( self::CRON_HOOK_HOURLY, array( __CLASS__, 'cron' ) );
	}

	/** The table's full name. */
	public static function table(): string {
		global $wpdb;
		return $wpdb->prefix . 'waypost_queue';
	}

	/**
	 * Creates or upgrades the table (activation, and `plugins_loaded` when the stored schema version is older).
	 */
	public static function install(): void {
		global $wpdb;
		require_once ABSPATH . 'wp-admin/includes/upgrade.php';
		$table   = self::table();
		$charset = $wpdb->get_charset_collate();
		// dbDelta's format: two spaces after PRIMARY KEY, one column or key per line.
		dbDelta(
			"CREATE TABLE {$table} (
  id bigint(20) unsigned NOT NULL AUTO_INCREMENT,
  resource varchar(20) NOT NULL,
  record_id bigint(20) unsigned NOT NULL,
  op varchar(10) NOT NULL DEFAULT 'put',
  attempts int(10) unsigned NOT NULL DEFAULT 0,
  next_attempt_at datetime NULL DEFAULT NULL,
  last_error text NULL,
  revision int(10) unsigned NOT NULL DEFAULT 0,
  created_at datetime NOT NULL,
  updated_at datetime NOT NULL,
  PRIMARY KEY  (id),
  UNIQUE KEY resource_record (resource,record_id),
  KEY next_attempt_at (next_attempt_at)
) {$charset};"
		);
		update_option( self::SCHEMA_OPTION, self::SCHEMA_VERSION, true );
		if ( ! wp_next_scheduled( self::CRON_HOOK_HOURLY ) ) {
			wp_schedule_event( time() + HOUR_IN_SECONDS, 'hourly', self::CRON_HOOK_HOURLY );
		}
		$next = self::next_due(); // Rows kept over a deactivation (which unscheduled their retry).
		if ( null !== $next ) {
			self::schedule( $next );
		}
	}

	/**
	 * A plugin copied into wp-content/plugins (or updated by copying) is never "activated": create the table here.
	 * The option is autoloaded, so this costs no query once the table exists.
	 */
	public static function maybe_install(): void {
		try {
			if ( version_compare( (string) get_option( self::SCHEMA_OPTION, '0' ), self::SCHEMA_VERSION, '<' ) ) {
				self::install();
			}
		} catch ( \Throwable $e ) {
			self::log( 'could not create the queue table: ' . $e->getMessage() );
		}
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
	public static function push( $resource, $id, $op = 'put', $error = null, $kind = 'failed', $due = null ) {
		global $wpdb;
		$table    = self::table();
		$id       = (int) $id;
		$op       = 'delete' === $op ? 'delete' : 'put';
		$now      = time();
		$existing = $wpdb->get_row( $wpdb->prepare( "SELECT id, attempts, last_error FROM {$table} WHERE resource = %s AND record_id = %d", $resource, $id ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		$attempts = $existing ? (int) $existing->attempts : 0;
		if ( 'deferred' === $kind ) {
			$next  = self::datetime( null === $due ? $now : max( $now, (int) $due ) );
			$error = null !== $error ? $error : ( $existing ? $existing->last_error : null );
		} else {
			++$attempts;
			$next = 'refused' === $kind ? null : self::datetime( $now + self::backoff( $attempts ) );
		}
		$stamp = self::datetime( $now );
		$sql   = $wpdb->prepare(
			"INSERT INTO {$table} (resource, record_id, op, attempts, next_attempt_at, last_error, revision, created_at, updated_at)
			VALUES (%s, %d, %s, %d, " . ( null === $next ? 'NULL' : '%s' ) . ', ' . ( null === $error ? 'NULL' : '%s' ) . ', 0, %s, %s)
			ON DUPLICATE KEY UPDATE op = VALUES(op), attempts = VALUES(attempts), next_attempt_at = VALUES(next_attempt_at),
				last_error = VALUES(last_error), revision = revision + 1, updated_at = VALUES(updated_at)', // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
			array_values(
				array_filter(
					array( $resource, $id, $op, $attempts, $next, null === $error ? null : self::clip( $error ), $stamp, $stamp ),
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
		self::schedule( $due );
		return $due;
	}

	/** Number of queued rows (waiting for a retry, or parked after a refusal). */
	public static function count(): int {
		global $wpdb;
		$table = self::table();
		return (int) $wpdb->get_var( "SELECT COUNT(*) FROM {$table}" ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
	}

	/** Number of parked rows (refused by Waypost; retried only on "Retry now" or a newer state). */
	public static function parked_count(): int {
		global $wpdb;
		$table = self::table();
		return (int) $wpdb->get_var( "SELECT COUNT(*) FROM {$table} WHERE next_attempt_at IS NULL" ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
	}

	/**
	 * The oldest queued change: array{resource, record_id, created_at (UTC 'Y-m-d H:i:s'), age (seconds)} or null.
	 */
	public static function oldest(): ?array {
		global $wpdb;
		$table = self::table();
		$row   = $wpdb->get_row( "SELECT resource, record_id, created_at FROM {$table} ORDER BY created_at ASC, id ASC LIMIT 1", ARRAY_A ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		if ( ! $row ) {
			return null;
		}
		$row['record_id'] = (int) $row['record_id'];
		$row['age']       = max( 0, time() - (int) strtotime( $row['created_at'] . ' UTC' ) );
		return $row;
	}

	/**
	 * The most recent error among queued rows: array{error, resource, record_id, attempts, at, next_attempt_at} or null.
	 */
	public static function last_error(): ?array {
		global $wpdb;
		$table = self::table();
		$row   = $wpdb->get_row( "SELECT last_error AS error, resource, record_id, attempts, updated_at AS at, next_attempt_at FROM {$table} WHERE last_error IS NOT NULL AND last_error <> '' ORDER BY updated_at DESC, id DESC LIMIT 1", ARRAY_A ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
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
		$table = self::table();
		$next  = $wpdb->get_var( "SELECT MIN(next_attempt_at) FROM {$table} WHERE next_attempt_at IS NOT NULL" ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		return $next ? (int) strtotime( $next . ' UTC' ) : null;
	}

	/**
	 * "Retry now": makes every row due (parked ones too), forgets that Waypost looked down, and runs the queue at once.
	 *
	 * @return array{sent:int, failed:int, skipped:int, remaining:int}
	 */
	public static function retry_now(): array {
		global $wpdb;
		$table = self::table();
		$wpdb->query( $wpdb->prepare( "UPDATE {$table} SET next_attempt_at = %s", self::datetime( time() ) ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		if ( class_exists( 'Waypost_Bridge_Forwarder' ) ) {
			Waypost_Bridge_Forwarder::mark_reachable();
		}
		return self::run();
	}

	/** WP-Cron entry point. */
	public static function cron(): void {
		try {
			self::run();
		} catch ( \Throwable $e ) {
			self::log( 'queue run failed: ' . $e->getMessage() );
		}
	}

	/**
	 * Sends due rows, oldest first. Each row is sent with its record's lock held and the record read again, so the
	 * latest state is what goes out. A network failure or timeout stops the run (Waypost is unreachable: the other
	 * rows keep their times).
	 *
	 * @param int   $limit  Most rows to try.
	 * @param float $budget Seconds to spend at most.
	 * @return array{sent:int, failed:int, skipped:int, remaining:int}
	 */
	public static function run( $limit = self::RUN_LIMIT, $budget = self::RUN_BUDGET ): array {
		global $wpdb;
		$table  = self::table();
		$result = array(
			'sent'      => 0,
			'failed'    => 0,
			'skipped'   => 0,
			'remaining' => 0,
		);
		if ( ! class_exists( 'Waypost_Bridge_Forwarder' ) ) {
			return $result;
		}
		$deadline = microtime( true ) + $budget;
		$rows     = $wpdb->get_results( $wpdb->prepare( "SELECT id, resource, record_id, op, revision FROM {$table} WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= %s ORDER BY id ASC LIMIT %d", self::datetime( time() ), (int) $limit ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		foreach ( (array) $rows as $row ) {
			$left = $deadline - microtime( true );
			if ( $left < 0.5 ) {
				break;
			}
			$outcome = Waypost_Bridge_Forwarder::deliver_queued( $row, min( Waypost_Bridge_Forwarder::TIMEOUT * 2.5, $left ) );
			if ( 'sent' === $outcome['result'] || 'nothing' === $outcome['result'] ) {
				++$result['sent'];
			} elseif ( 'busy' === $outcome['result'] ) {
				++$result['skipped'];
			} else {
				++$result['failed'];
				if ( ! empty( $outcome['unreachable'] ) ) {
					// Waypost is unreachable: the rows behind this one wait as long as it does (they keep their
					// order and are not counted as attempts), instead of each waking WP-Cron on its own.
					$until = $wpdb->get_var( $wpdb->prepare( "SELECT next_attempt_at FROM {$table} WHERE id = %d", (int) $row->id ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
					if ( $until ) {
						$wpdb->query( $wpdb->prepare( "UPDATE {$table} SET next_attempt_at = %s WHERE next_attempt_at IS NOT NULL AND next_attempt_at < %s", $until, $until ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
					}
					break;
				}
			}
		}
		$result['remaining'] = self::count();
		$next                = self::next_due();
		if ( null !== $next ) {
			self::schedule( max( $next, time() + 5 ) );
		}
		return $result;
	}

	/**
	 * One queued row as it is now (id, op, revision), or null when it is gone (sent meanwhile by a request).
	 *
	 * @param int $id Row id.
	 * @return object|null
	 */
	public static function row( int $id ) {
		global $wpdb;
		$table = self::table();
		return $wpdb->get_row( $wpdb->prepare( "SELECT id, op, revision FROM {$table} WHERE id = %d", $id ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
	}

	/**
	 * The revision of a record's queued row, or null. A request reads it *before* it reads the record: if its send
	 * succeeds, only that row (that revision) is dropped (forget()); a row that a later state added or replaced
	 * meanwhile stays queued.
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Record id.
	 */
	public static function revision_of( $resource, $id ): ?int {
		global $wpdb;
		$table = self::table();
		$rev   = $wpdb->get_var( $wpdb->prepare( "SELECT revision FROM {$table} WHERE resource = %s AND record_id = %d", $resource, (int) $id ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		return null === $rev ? null : (int) $rev;
	}

	/**
	 * Drops a record's queued row if it still has the given revision (see revision_of()).
	 *
	 * @param string   $resource Resource.
	 * @param int      $id       Record id.
	 * @param int|null $revision Revision read before the send (null: there was no row; nothing to do).
	 */
	public static function forget( $resource, $id, ?int $revision ): void {
		global $wpdb;
		if ( null === $revision ) {
			return;
		}
		$table = self::table();
		$wpdb->query( $wpdb->prepare( "DELETE FROM {$table} WHERE resource = %s AND record_id = %d AND revision = %d", $resource, (int) $id, $revision ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
	}

	/**
	 * After an attempt from the queue: drop the row if it still is the one that was sent (a newer state that arrived
	 * meanwhile bumped its revision and stays queued), or record the failure.
	 *
	 * @param object      $row     The row as read (id, revision).
	 * @param string      $result  'sent'|'nothing'|'failed'|'refused'.
	 * @param string|null $error   The error.
	 */
	public static function settle( $row, $result, $error = null ): void {
		global $wpdb;
		$table = self::table();
		if ( 'sent' === $result || 'nothing' === $result ) {
			$wpdb->query( $wpdb->prepare( "DELETE FROM {$table} WHERE id = %d AND revision = %d", (int) $row->id, (int) $row->revision ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
			return;
		}
		$current = $wpdb->get_row( $wpdb->prepare( "SELECT attempts, revision FROM {$table} WHERE id = %d", (int) $row->id ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
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
	 * Seconds to wait after the n-th failed attempt: 60, 120, 240, … up to 3600.
	 *
	 * @param int $attempts Failed attempts so far (1 or more).
	 */
	public static function backoff( $attempts ): int {
		$attempts = max( 1, (int) $attempts );
		return (int) min( self::BACKOFF_MAX, self::BACKOFF_MIN * pow( 2, min( 12, $attempts - 1 ) ) );
	}

	/**
	 * Makes sure a retry run is scheduled no later than $when.
	 *
	 * @param int $when Unix time.
	 */
	public static function schedule( $when ): void {
		$when = max( time(), (int) $when );
		$next = wp_next_scheduled( self::CRON_HOOK );
		if ( false === $next || $next > $when + 30 ) {
			wp_schedule_single_event( $when, self::CRON_HOOK );
		}
	}

	/**
	 * UTC 'Y-m-d H:i:s'.
	 *
	 * @param int $time Unix time.
	 */
	private static function datetime( $time ): string {
		return gmdate( 'Y-m-d H:i:s', (int) $time );
	}

	/**
	 * Keeps stored errors short.
	 *
	 * @param string $error Error text.
	 */
	private static function clip( $error ): string {
		$error = (string) $error;
		return strlen( $error ) > 1000 ? substr( $error, 0, 997 ) . '...' : $error;
	}

	/**
	 * Logs to the PHP error log.
	 *
	 * @param string $message Message.
	 */
	private static function log( $message ): void {
		error_log( 'Waypost bridge: ' . $message ); // phpcs:ignore WordPress.PHP.DevelopmentFunctions.error_log_error_log
	}
}
