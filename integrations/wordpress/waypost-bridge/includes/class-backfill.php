<?php
/**
 * Backfill: sends the records that existed before the bridge was installed, in batches (one Host API batch call
 * each), in the order trips, customers, payments, bookings, enquiries, reviews, by ascending id. Resumable: the
 * cursor is kept in an option after every batch, and every write is an idempotent upsert, so running it again (or a
 * batch twice) duplicates nothing.
 *
 * Two drivers share Waypost_Bridge_Backfill_Batch::run() (class-backfill-batch.php): `wp waypost backfill`
 * (class-cli.php) and "Send existing records" on the settings page, which calls start(). While the page is open, it
 * drives the run itself (drive(), a few seconds per admin-ajax request), so a site with DISABLE_WP_CRON finishes
 * too; WP-Cron single events continue it in the background when the page is closed. The sending lock
 * (class-sending-lock.php) keeps the two from sending at once; the run's state is class-backfill-state.php's, its
 * cursor over the records class-backfill-cursor.php's.
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

	/** WP-Cron hook of the background continuation. */
	public const HOOK = 'waypost_bridge_backfill_continue';

	/** Seconds one background event spends sending before it schedules the next. */
	public const BACKGROUND_BUDGET = 20;

	/** Seconds one request from the open settings page spends sending (short, so its progress bar moves). */
	public const PAGE_BUDGET = 5;

	/** Whole-batch failures in a row (Waypost down) after which the background run stops. */
	public const MAX_FAILURES = 8;

	/** Hooks the background continuation. */
	public static function register(): void {
		add_action( self::HOOK, array( __CLASS__, 'continue_in_background' ), 10, 2 );
	}

	/**
	 * "Send existing records": starts a run, driven by the open settings page (drive()) and continued by WP-Cron
	 * when it runs. A run that was cancelled or stopped midway is resumed from its cursor; after a finished run (or
	 * with $resume false) it starts over.
	 *
	 * @param bool $resume Continue an unfinished run from its saved cursor.
	 * @return array status()
	 */
	public static function start( bool $resume = true ): array {
		$state = Waypost_Bridge_Backfill_State::get();
		if ( $state['running'] ) {
			return Waypost_Bridge_Backfill_State::status();
		}
		$run_id = wp_generate_password( 12, false );
		$cursor = $resume ? Waypost_Bridge_Backfill_State::saved_cursor() : null;
		$errors = null !== $cursor ? $state['errors'] : array();
		// A new cursor counts the records, for the page.
		$cursor = null !== $cursor ? $cursor : Waypost_Bridge_Backfill_Cursor::normalize( null );
		Waypost_Bridge_Backfill_State::save(
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
		return Waypost_Bridge_Backfill_State::status();
	}

	/**
	 * Stops a background run after its current batch; the cursor is kept (start() resumes).
	 *
	 * @return array status()
	 */
	public static function cancel(): array {
		Waypost_Bridge_Backfill_State::save( array( 'running' => false ) );
		if ( function_exists( 'wp_unschedule_hook' ) ) {
			wp_unschedule_hook( self::HOOK );
		} else {
			$state = Waypost_Bridge_Backfill_State::get();
			wp_clear_scheduled_hook( self::HOOK, array( $state['run_id'], 0 ) );
		}
		return Waypost_Bridge_Backfill_State::status();
	}

	/**
	 * WP-Cron: one slice of a background run. Sends batches for BACKGROUND_BUDGET seconds, then schedules the next
	 * slice (at once; after a whole-batch failure with a growing delay, giving up after MAX_FAILURES in a row).
	 *
	 * @param string $run_id   The run this event belongs to (events of a cancelled or older run do nothing).
	 * @param int    $failures Whole-batch failures in a row so far (also keeps each event's arguments distinct).
	 */
	public static function continue_in_background( string $run_id = '', int $failures = 0 ): void {
		$state = Waypost_Bridge_Backfill_State::get();
		if ( ! $state['running'] || $state['run_id'] !== $run_id ) {
			return;
		}
		if ( ! Waypost_Bridge_Sending_Lock::take() ) {
			self::schedule( $run_id, (int) $failures, 30 ); // Another driver (the page, the CLI) is sending.
			return;
		}
		try {
			/** Seconds one WP-Cron event sends before it hands over to the next (default 20). */
			$budget  = (float) apply_filters( 'waypost_bridge_backfill_slice_seconds', self::BACKGROUND_BUDGET );
			$outcome = self::run_slice( $run_id, $budget );
		} finally {
			Waypost_Bridge_Sending_Lock::release();
		}
		$state = Waypost_Bridge_Backfill_State::get();
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
		$state = Waypost_Bridge_Backfill_State::get();
		$wait  = 0;
		if ( $state['running'] ) {
			$wait = 2000;
			if ( Waypost_Bridge_Sending_Lock::take() ) {
				try {
					$outcome = self::run_slice( $state['run_id'], self::PAGE_BUDGET );
				} finally {
					Waypost_Bridge_Sending_Lock::release();
				}
				$failures = (int) Waypost_Bridge_Backfill_State::get()['failures'];
				$wait     = 'failed' === $outcome ? (int) min( 60000, 5000 * pow( 2, max( 0, $failures - 1 ) ) ) : 100;
			}
		}
		return array_merge( Waypost_Bridge_Backfill_State::status(), array( 'next_in_ms' => $wait ) );
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
		$size   = Waypost_Bridge_Backfill_Batch::DEFAULT_SIZE;
		$size   = (int) apply_filters( 'waypost_bridge_backfill_batch_size', $size );
		$cursor = Waypost_Bridge_Backfill_State::saved_cursor();
		if ( null === $cursor ) { // Finished meanwhile (by the CLI): not a new run from the start.
			Waypost_Bridge_Backfill_State::save( array( 'running' => false ) );
			return 'done';
		}
		do {
			$result = Waypost_Bridge_Backfill_Batch::run( $cursor, $size );
			$state  = Waypost_Bridge_Backfill_State::get();
			if ( null !== $result['error'] ) {
				$failures = (int) $state['failures'] + 1;
				Waypost_Bridge_Backfill_State::save(
					array(
						'running'  => $failures < self::MAX_FAILURES && $state['running'],
						'failures' => $failures,
					)
				);
				return 'failed';
			}
			$cursor = $result['cursor'];
			if ( $result['done'] ) {
				Waypost_Bridge_Backfill_State::save(
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
		Waypost_Bridge_Backfill_State::save( array( 'failures' => 0 ) );
		return 'more';
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
	private static function schedule( string $run_id, int $failures, int $delay ): void {
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
	public static function wp_cron_disabled(): bool {
		return defined( 'DISABLE_WP_CRON' ) && DISABLE_WP_CRON;
	}
}
