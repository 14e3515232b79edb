<?php
/**
 * Backfill: sends the records that existed before the bridge was installed, in batches (one Host API batch call
 * each), in the order trips, customers, payments, bookings, enquiries, reviews, by ascending id. Resumable: the
 * cursor is kept in an option after every batch, and every write is an idempotent upsert, so running it again (or a
 * batch twice) duplicates nothing.
 *
 * Two drivers share run_batch(): `wp waypost backfill` (class-cli.php) and "Send existing records" on the settings
 * page, which calls start(). While the page is open, it drives the run itself (drive(), a few seconds per admin-ajax
 * request), so a site with DISABLE_WP_CRON finishes too; WP-Cron single events continue it in the background when
 * the page is closed. The sending lock keeps the two from sending at once.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Batched, resumable sending of existing records.
 */
class Waypost_Bridge_Backfill {

	public const ORDER = array( 'trips', 'customers', 'payments', 'bookings', 'enquiries', 'reviews' );

	/** State: cursor, running, counters, errors (see status()). */
	public const OPTION = 'waypost_bridge_backfill';

	/** Held while a batch runs, so the page's background run and the CLI never send at once. */
	public const LOCK_OPTION = 'waypost_bridge_backfill_lock';

	/** WP-Cron hook of the background continuation. */
	public const HOOK = 'waypost_bridge_backfill_continue';

	public const DEFAULT_SIZE = 200;

	/** Seconds one background event spends sending before it schedules the next. */
	public const BACKGROUND_BUDGET = 20;

	/** Seconds one request from the open settings page spends sending (short, so its progress bar moves). */
	public const PAGE_BUDGET = 5;

	/** Whole-batch failures in a row (Waypost down) after which the background run stops. */
	public const MAX_FAILURES = 8;

	/** Errors kept for the page (the latest). */
	public const MAX_ERRORS = 20;

	/** Hooks the background continuation. */
	public static function register() {
		add_action( self::HOOK, array( __CLASS__, 'continue_in_background' ), 10, 2 );
	}

	/**
	 * Sends the next batch after $cursor: up to $size records (fewer when a resource ends and the batch moves on to
	 * the next), in one Host API batch call. Records that record() turns down (half-written, superseded by a
	 * migration, unapproved) are skipped. On a whole-batch failure (Waypost unreachable, token refused) the cursor
	 * does not move, so the same batch is sent again next time.
	 *
	 * @param array|null $cursor A cursor returned earlier, or null to start from the beginning.
	 * @param int        $size   Records per batch (1-500).
	 * @return array ['cursor' => array, 'done' => bool, 'sent' => int, 'unchanged' => int, 'failed' => int,
	 *               'total' => int, 'skipped' => int, 'position' => int, 'error' => string|null]: the counts are this
	 *               batch's (sent: Waypost stored a change; unchanged: it already had the record as it is); the
	 *               cursor carries the running totals and position (records examined so far, out of total).
	 */
	public static function run_batch( $cursor, $size = self::DEFAULT_SIZE ) {
		$size   = max( 1, min( Waypost_Bridge_Client::BATCH_MAX, (int) $size ) );
		$cursor = self::normalize_cursor( $cursor );
		$result = array(
			'cursor'    => $cursor,
			'done'      => null === $cursor['resource'],
			'sent'      => 0,
			'unchanged' => 0,
			'failed'    => 0,
			'skipped'   => 0,
			'total'     => $cursor['total'],
			'position'  => $cursor['position'],
			'error'     => null,
		);
		if ( $result['done'] ) {
			return $result;
		}

		$next     = $cursor;
		$ops      = array();
		$examined = 0;
		$skipped  = 0;
		$errors   = array();
		while ( null !== $next['resource'] && $examined < $size ) {
			$resource = $next['resource'];
			$want     = $size - $examined;
			$ids      = self::candidate_ids( $resource, $next['after'], $want );
			Waypost_Bridge_Mapper::prime( $resource, $ids );
			foreach ( $ids as $id ) {
				try {
					$record = Waypost_Bridge_Mapper::record( $resource, $id );
				} catch ( Throwable $e ) {
					$record   = null;
					$errors[] = self::error_entry( $resource, $id, 'could not be read: ' . $e->getMessage() );
				}
				if ( null === $record ) {
					++$skipped;
				} else {
					$ops[] = array(
						'op'       => 'put',
						'resource' => $resource,
						'id'       => $id,
						'data'     => $record,
					);
				}
				$next['after'] = $id;
			}
			$examined += count( $ids );
			if ( count( $ids ) < $want ) {
				$next = self::next_resource( $next );
			}
		}

		$sent      = 0;
		$unchanged = 0;
		$failed    = count( $errors );
		if ( $ops ) {
			$answer = Waypost_Bridge_Client::batch( $ops, max( 15.0, 0.1 * count( $ops ) ) );
			if ( null !== $answer['error'] ) {
				$result['failed'] = count( $ops );
				$result['error']  = $answer['error'];
				self::save_state( array( 'last_error' => $answer['error'] ) );
				self::after_batch();
				return $result;
			}
			foreach ( $answer['body']['results'] as $item ) {
				$op = isset( $ops[ (int) $item['index'] ] ) ? $ops[ (int) $item['index'] ] : null;
				if ( isset( $item['status'] ) && $item['status'] >= 200 && $item['status'] < 300 ) {
					// Waypost says whether it stored a change; one that does not say (older) counts as sent.
					if ( isset( $item['changed'] ) && false === $item['changed'] ) {
						++$unchanged;
					} else {
						++$sent;
					}
				} elseif ( null !== $op ) {
					++$failed;
					$detail   = isset( $item['error']['detail'] ) ? (string) $item['error']['detail'] : 'HTTP ' . ( isset( $item['status'] ) ? (int) $item['status'] : 0 );
					$errors[] = self::error_entry( $op['resource'], $op['id'], $detail );
				}
			}
		}

		$next['position']  += $examined;
		$next['sent']      += $sent;
		$next['unchanged'] += $unchanged;
		$next['failed']    += $failed;
		$next['skipped']   += $skipped;
		$state              = self::state();
		self::save_state(
			array(
				'cursor'     => $next,
				'last_error' => null,
				'errors'     => array_slice( array_merge( $state['errors'], $errors ), -self::MAX_ERRORS ),
			)
		);
		self::after_batch();
		return array(
			'cursor'    => $next,
			'done'      => null === $next['resource'],
			'sent'      => $sent,
			'unchanged' => $unchanged,
			'failed'    => $failed,
			'skipped'   => $skipped,
			'total'     => $next['total'],
			'position'  => $next['position'],
			'error'     => null,
		);
	}

	/**
	 * The cursor a new run should continue from: the saved one unless it finished (then null: start over).
	 *
	 * @return array|null
	 */
	public static function saved_cursor() {
		$state = self::state();
		return is_array( $state['cursor'] ) && null !== $state['cursor']['resource'] ? $state['cursor'] : null;
	}

	/**
	 * "Send existing records": starts a run, driven by the open settings page (drive()) and continued by WP-Cron
	 * when it runs. A run that was cancelled or stopped midway is resumed from its cursor; after a finished run (or
	 * with $resume false) it starts over.
	 *
	 * @param bool $resume Continue an unfinished run from its saved cursor.
	 * @return array status()
	 */
	public static function start( $resume = true ) {
		$state = self::state();
		if ( $state['running'] ) {
			return self::status();
		}
		$run_id = wp_generate_password( 12, false );
		$cursor = $resume ? self::saved_cursor() : null;
		$errors = null !== $cursor ? $state['errors'] : array();
		$cursor = null !== $cursor ? $cursor : self::normalize_cursor( null ); // Counts the records, for the page.
		self::save_state(
			array(
				'running'     => true,
				'run_id'      => $run_id,
				'cursor'      => $cursor,
				'started_at'  => time(),
				'finished_at' => null,
				'failures'    => 0,
				'last_error'  => null,
				'errors'      => $errors,
			)
		);
		self::schedule( $run_id, 0, 0 );
		return self::status();
	}

	/**
	 * Stops a background run after its current batch; the cursor is kept (start() resumes).
	 *
	 * @return array status()
	 */
	public static function cancel() {
		self::save_state( array( 'running' => false ) );
		if ( function_exists( 'wp_unschedule_hook' ) ) {
			wp_unschedule_hook( self::HOOK );
		} else {
			$state = self::state();
			wp_clear_scheduled_hook( self::HOOK, array( $state['run_id'], 0 ) );
		}
		return self::status();
	}

	/**
	 * Progress for the settings page and `wp waypost status`.
	 *
	 * @return array ['running', 'done', 'resource', 'position', 'total', 'percent', 'sent', 'unchanged', 'failed', 'skipped',
	 *               'started_at', 'finished_at', 'next_run', 'last_error', 'errors' => [[resource, id, error], …]]
	 */
	public static function status() {
		$state  = self::state();
		$cursor = is_array( $state['cursor'] ) ? $state['cursor'] : null;
		$total  = null !== $cursor ? $cursor['total'] : 0;
		$pos    = null !== $cursor ? $cursor['position'] : 0;
		$done   = null !== $cursor && null === $cursor['resource'];
		return array(
			'running'     => (bool) $state['running'],
			'done'        => $done,
			'resource'    => null !== $cursor ? $cursor['resource'] : null,
			'position'    => $pos,
			'total'       => $total,
			'percent'     => $done ? 100 : ( $total > 0 ? (int) floor( 100 * min( $pos, $total ) / $total ) : 0 ),
			'sent'        => null !== $cursor ? $cursor['sent'] : 0,
			'unchanged'   => null !== $cursor ? $cursor['unchanged'] : 0,
			'failed'      => null !== $cursor ? $cursor['failed'] : 0,
			'skipped'     => null !== $cursor ? $cursor['skipped'] : 0,
			'started_at'  => $state['started_at'],
			'finished_at' => $state['finished_at'],
			'next_run'    => $state['running'] ? wp_next_scheduled( self::HOOK, array( $state['run_id'], (int) $state['failures'] ) ) : false,
			'last_error'  => $state['last_error'],
			'errors'      => $state['errors'],
		);
	}

	/**
	 * WP-Cron: one slice of a background run. Sends batches for BACKGROUND_BUDGET seconds, then schedules the next
	 * slice (at once; after a whole-batch failure with a growing delay, giving up after MAX_FAILURES in a row).
	 *
	 * @param string $run_id   The run this event belongs to (events of a cancelled or older run do nothing).
	 * @param int    $failures Whole-batch failures in a row so far (also keeps each event's arguments distinct).
	 */
	public static function continue_in_background( $run_id = '', $failures = 0 ) {
		$state = self::state();
		if ( ! $state['running'] || $state['run_id'] !== $run_id ) {
			return;
		}
		if ( ! self::lock() ) {
			self::schedule( $run_id, (int) $failures, 30 ); // Another driver (the page, the CLI) is sending.
			return;
		}
		try {
			/** Seconds one WP-Cron event sends before it hands over to the next (default 20). */
			$budget  = (float) apply_filters( 'waypost_bridge_backfill_slice_seconds', self::BACKGROUND_BUDGET );
			$outcome = self::run_slice( $run_id, $budget );
		} finally {
			self::unlock();
		}
		$state = self::state();
		if ( 'more' === $outcome ) {
			self::schedule( $run_id, 0, 0 );
		} elseif ( 'failed' === $outcome && $state['running'] ) { // Not after MAX_FAILURES: the run stopped.
			$failures = (int) $state['failures'];
			self::schedule( $run_id, $failures, (int) min( 600, 15 * pow( 2, $failures - 1 ) ) );
		}
	}

	/**
	 * The open settings page: sends batches for PAGE_BUDGET seconds (admin-ajax, one request after another), so a
	 * run finishes while the page is open even where WP-Cron never runs (DISABLE_WP_CRON with no system cron). When
	 * WP-Cron or the CLI holds the sending lock, it only reports progress.
	 *
	 * @return array status(), plus 'next_in_ms': how long the page waits before its next request (longer while
	 *               another driver sends, and growing after whole-batch failures, as WP-Cron's slices do).
	 */
	public static function drive(): array {
		$state = self::state();
		$wait  = 0;
		if ( $state['running'] ) {
			$wait = 2000;
			if ( self::lock() ) {
				try {
					$outcome = self::run_slice( $state['run_id'], self::PAGE_BUDGET );
				} finally {
					self::unlock();
				}
				$failures = (int) self::state()['failures'];
				$wait     = 'failed' === $outcome ? (int) min( 60000, 5000 * pow( 2, max( 0, $failures - 1 ) ) ) : 100;
			}
		}
		return array_merge( self::status(), array( 'next_in_ms' => $wait ) );
	}

	/**
	 * Sends batches of a run for $budget seconds (less under a short max_execution_time). The caller holds the lock.
	 *
	 * @param string $run_id The run.
	 * @param float  $budget Seconds.
	 * @return string 'more' (budget used up), 'done', 'failed' (a whole batch failed; counted, and after
	 *                MAX_FAILURES in a row the run stops) or 'stopped' (cancelled or replaced meanwhile).
	 */
	private static function run_slice( string $run_id, float $budget ): string {
		$started = microtime( true );
		$limit   = (int) ini_get( 'max_execution_time' );
		if ( $limit > 0 ) {
			$budget = min( $budget, max( 5, (int) ( $limit / 2 ) ) );
		}
		/** Records per Host API batch of a run from the settings page (default 200, at most 500). */
		$size   = (int) apply_filters( 'waypost_bridge_backfill_batch_size', self::DEFAULT_SIZE );
		$cursor = self::saved_cursor();
		if ( null === $cursor ) { // Finished meanwhile (by the CLI): not a new run from the start.
			self::save_state( array( 'running' => false ) );
			return 'done';
		}
		do {
			$result = self::run_batch( $cursor, $size );
			$state  = self::state();
			if ( null !== $result['error'] ) {
				$failures = (int) $state['failures'] + 1;
				self::save_state(
					array(
						'running'  => $failures < self::MAX_FAILURES && $state['running'],
						'failures' => $failures,
					)
				);
				return 'failed';
			}
			$cursor = $result['cursor'];
			if ( $result['done'] ) {
				self::save_state(
					array(
						'running'     => false,
						'failures'    => 0,
						'finished_at' => time(),
					)
				);
				return 'done';
			}
			if ( ! $state['running'] || $state['run_id'] !== $run_id ) {
				return 'stopped';
			}
		} while ( microtime( true ) - $started < $budget );
		self::save_state( array( 'failures' => 0 ) );
		return 'more';
	}

	/**
	 * Takes the sending lock (a stale one, older than 10 minutes, is taken over).
	 *
	 * @return bool
	 */
	public static function lock() {
		global $wpdb;
		// INSERT IGNORE: of two processes at once exactly one inserts (add_option() upserts, so both could "win").
		$insert = "INSERT IGNORE INTO {$wpdb->options} (option_name, option_value, autoload) VALUES (%s, %s, 'no')";
		if ( 1 === (int) $wpdb->query( $wpdb->prepare( $insert, self::LOCK_OPTION, (string) time() ) ) ) { // phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.NotPrepared
			return true;
		}
		$since = (int) $wpdb->get_var( $wpdb->prepare( "SELECT option_value FROM {$wpdb->options} WHERE option_name = %s", self::LOCK_OPTION ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
		if ( $since > 0 && time() - $since < 600 ) {
			return false;
		}
		// A stale lock (its holder died): take it over, unless another process just did.
		$taken = $wpdb->query( $wpdb->prepare( "UPDATE {$wpdb->options} SET option_value = %s WHERE option_name = %s AND option_value = %s", (string) time(), self::LOCK_OPTION, (string) $since ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
		return 1 === (int) $taken;
	}

	/** Releases the sending lock. */
	public static function unlock() {
		global $wpdb;
		$wpdb->delete( $wpdb->options, array( 'option_name' => self::LOCK_OPTION ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
		wp_cache_delete( self::LOCK_OPTION, 'options' );
	}

	/**
	 * How many records a run examines: the candidate rows of every resource (computed when a run starts).
	 *
	 * @return int
	 */
	public static function count_candidates() {
		global $wpdb;
		$total = 0;
		foreach ( self::ORDER as $resource ) {
			if ( 'reviews' === $resource ) {
				$total += (int) $wpdb->get_var( "SELECT COUNT(*) FROM {$wpdb->comments} c JOIN {$wpdb->posts} p ON p.ID = c.comment_post_ID WHERE p.post_type = 'trip' AND c.comment_approved = '1' AND c.comment_type IN ('', 'comment', 'review')" ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
			} else {
				$total += (int) $wpdb->get_var( $wpdb->prepare( "SELECT COUNT(*) FROM {$wpdb->posts} WHERE post_type = %s AND post_status NOT IN ('trash', 'auto-draft', 'inherit')", self::post_type( $resource ) ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
			}
		}
		return $total;
	}

	/**
	 * Ids of the records of a resource after $after, ascending.
	 *
	 * @param string $resource Resource.
	 * @param int    $after    Last id done.
	 * @param int    $limit    At most.
	 * @return int[]
	 */
	private static function candidate_ids( $resource, $after, $limit ) {
		global $wpdb;
		if ( 'reviews' === $resource ) {
			$sql = $wpdb->prepare( "SELECT c.comment_ID FROM {$wpdb->comments} c JOIN {$wpdb->posts} p ON p.ID = c.comment_post_ID WHERE p.post_type = 'trip' AND c.comment_approved = '1' AND c.comment_type IN ('', 'comment', 'review') AND c.comment_ID > %d ORDER BY c.comment_ID ASC LIMIT %d", $after, $limit );
		} else {
			$sql = $wpdb->prepare( "SELECT ID FROM {$wpdb->posts} WHERE post_type = %s AND post_status NOT IN ('trash', 'auto-draft', 'inherit') AND ID > %d ORDER BY ID ASC LIMIT %d", self::post_type( $resource ), $after, $limit );
		}
		return array_map( 'intval', (array) $wpdb->get_col( $sql ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.NotPrepared
	}

	/**
	 * @param string $resource Resource other than reviews.
	 * @return string Its post type.
	 */
	private static function post_type( $resource ) {
		return (string) array_search( $resource, Waypost_Bridge_Mapper::POST_TYPES, true );
	}

	/**
	 * @param array|null $cursor As given by a caller (or null).
	 * @return array A complete cursor.
	 */
	private static function normalize_cursor( $cursor ) {
		if ( ! is_array( $cursor ) ) {
			return array(
				'resource' => self::ORDER[0],
				'after'    => 0,
				'position' => 0,
				'total'    => self::count_candidates(),
				'sent'      => 0,
				'unchanged' => 0,
				'failed'    => 0,
				'skipped'   => 0,
			);
		}
		$resource = isset( $cursor['resource'] ) && in_array( $cursor['resource'], self::ORDER, true ) ? $cursor['resource'] : null;
		$out      = array(
			'resource' => $resource,
			'after'    => isset( $cursor['after'] ) ? max( 0, (int) $cursor['after'] ) : 0,
			'position' => 0,
			'total'    => 0,
			'sent'      => 0,
			'unchanged' => 0,
			'failed'    => 0,
			'skipped'   => 0,
		);
		foreach ( array( 'position', 'total', 'sent', 'unchanged', 'failed', 'skipped' ) as $key ) {
			$out[ $key ] = isset( $cursor[ $key ] ) ? max( 0, (int) $cursor[ $key ] ) : 0;
		}
		return $out;
	}

	/**
	 * @param array $cursor Cursor at the end of its resource.
	 * @return array The cursor at the start of the next resource (resource null when all are done).
	 */
	private static function next_resource( array $cursor ) {
		$index              = array_search( $cursor['resource'], self::ORDER, true );
		$cursor['resource'] = array_key_exists( $index + 1, self::ORDER ) ? self::ORDER[ $index + 1 ] : null;
		$cursor['after']    = 0;
		return $cursor;
	}

	/**
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 * @param string $error    What went wrong.
	 * @return array
	 */
	private static function error_entry( $resource, $id, $error ) {
		return array(
			'resource' => $resource,
			'id'       => (int) $id,
			'error'    => substr( (string) $error, 0, 500 ),
			'at'       => time(),
		);
	}

	/** Frees what this batch loaded (a run over 100,000 records must not keep them all in memory). */
	private static function after_batch() {
		Waypost_Bridge_Mapper::reset_cache();
		if ( function_exists( 'wp_cache_flush_runtime' ) ) {
			wp_cache_flush_runtime();
		} elseif ( ! wp_using_ext_object_cache() ) {
			wp_cache_flush();
		}
		global $wpdb;
		if ( is_array( $wpdb->queries ) && count( $wpdb->queries ) > 1000 ) {
			$wpdb->queries = array();
		}
	}

	/**
	 * Schedules the next background slice with WP-Cron. A slice due now runs on WP-Cron's next spawn (core's
	 * spawn_cron() on the next page view, or a system cron calling wp-cron.php); while the settings page is open,
	 * the page does not wait for it (drive()).
	 *
	 * @param string $run_id   Run.
	 * @param int    $failures Failures in a row.
	 * @param int    $delay    Seconds from now.
	 */
	private static function schedule( $run_id, $failures, $delay ) {
		$args = array( $run_id, (int) $failures );
		if ( ! wp_next_scheduled( self::HOOK, $args ) ) {
			wp_schedule_single_event( time() + $delay, self::HOOK, $args );
		}
	}

	/**
	 * Whether WP-Cron runs by itself on this site (it does not with DISABLE_WP_CRON: then only a system cron that
	 * calls wp-cron.php runs it, if there is one).
	 *
	 * @return bool
	 */
	public static function wp_cron_disabled() {
		return defined( 'DISABLE_WP_CRON' ) && DISABLE_WP_CRON;
	}

	/** @return array The saved state, with defaults. */
	private static function state() {
		$state = get_option( self::OPTION, array() );
		$state = is_array( $state ) ? $state : array();
		return array_merge(
			array(
				'running'     => false,
				'run_id'      => '',
				'cursor'      => null,
				'started_at'  => null,
				'finished_at' => null,
				'failures'    => 0,
				'last_error'  => null,
				'errors'      => array(),
			),
			$state
		);
	}

	/**
	 * Merges into the saved state (not autoloaded).
	 *
	 * @param array $changes Keys to set.
	 */
	private static function save_state( array $changes ) {
		$state = array_merge( self::state(), $changes );
		if ( isset( $state['cursor'] ) && is_array( $state['cursor'] ) ) {
			$state['cursor'] = self::normalize_cursor( $state['cursor'] );
		}
		update_option( self::OPTION, $state, false );
	}
}
