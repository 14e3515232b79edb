<?php
/**
 * The retry queue's worker: WP-Cron (a single event at the next due time, and an hourly safety net) and "Retry
 * now" send the due rows, oldest first, through the forwarder; the queue's SQL stays in class-queue.php.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Runs the retry queue.
 */
class Waypost_Bridge_Queue_Runner {

	/** The WP-Cron hook that retries due rows (a single event at the next due time). */
	public const CRON_HOOK = 'waypost_bridge_retry_queue';

	/** A recurring safety net, in case a single event is ever lost. */
	public const CRON_HOOK_HOURLY = 'waypost_bridge_retry_queue_hourly';

	/** One cron run sends at most this many rows and stops after this many seconds (the rest wait for the next run). */
	public const RUN_LIMIT  = 200;
	public const RUN_BUDGET = 20.0;

	/**
	 * Hooks the cron worker.
	 */
	public static function register(): void {
		add_action( self::CRON_HOOK, array( __CLASS__, 'cron' ) );
		add_action( self::CRON_HOOK_HOURLY, array( __CLASS__, 'cron' ) );
	}

	/**
	 * "Retry now": makes every row due (parked ones too), forgets that Waypost looked down, and runs the queue at once.
	 *
	 * @return array{sent:int, failed:int, skipped:int, remaining:int}
	 */
	public static function retry_now(): array {
		Waypost_Bridge_Queue::make_all_due();
		Waypost_Bridge_Erasure_Queue::make_all_due();
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
			Waypost_Bridge_Queue::log( 'queue run failed: ' . $e->getMessage() );
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
	public static function run( int $limit = self::RUN_LIMIT, float $budget = self::RUN_BUDGET ): array {
		$result = array(
			'sent'      => 0,
			'failed'    => 0,
			'skipped'   => 0,
			'remaining' => 0,
		);
		if ( ! class_exists( 'Waypost_Bridge_Forwarder' ) ) {
			return $result;
		}
		$deadline    = microtime( true ) + $budget;
		$unreachable = false;
		foreach ( Waypost_Bridge_Queue::due_rows( (int) $limit ) as $row ) {
			$left = $deadline - microtime( true );
			if ( $left < 0.5 ) {
				break;
			}
			$timeout = min( Waypost_Bridge_Forwarder::TIMEOUT * 2.5, $left );
			$outcome = Waypost_Bridge_Forwarder::deliver_queued( $row, $timeout );
			if ( 'sent' === $outcome['result'] || 'nothing' === $outcome['result'] ) {
				++$result['sent'];
			} elseif ( 'busy' === $outcome['result'] ) {
				++$result['skipped'];
			} else {
				++$result['failed'];
				if ( ! empty( $outcome['unreachable'] ) ) {
					// Waypost is unreachable: the rows behind this one wait as long as it does (they keep their
					// order and are not counted as attempts), instead of each waking WP-Cron on its own.
					Waypost_Bridge_Queue::hold_behind( (int) $row->id );
					$unreachable = true;
					break;
				}
			}
		}
		// Erasures queued by the privacy eraser go after the records: a queued record of the person sent after their
		// erasure would bring their data back into Waypost.
		if ( ! $unreachable ) {
			$erasures          = Waypost_Bridge_Erasure_Queue::run( $deadline );
			$result['sent']   += $erasures['sent'];
			$result['failed'] += $erasures['failed'];
		}
		$result['remaining'] = Waypost_Bridge_Queue_Stats::count() + Waypost_Bridge_Erasure_Queue::count();
		$next                = Waypost_Bridge_Queue_Stats::next_due();
		if ( null !== $next ) {
			self::schedule( max( $next, time() + 5 ) );
		}
		return $result;
	}

	/**
	 * Makes sure a retry run is scheduled no later than $when.
	 *
	 * @param int $when Unix time.
	 */
	public static function schedule( int $when ): void {
		$when = max( time(), (int) $when );
		$next = wp_next_scheduled( self::CRON_HOOK );
		if ( false === $next || $next > $when + 30 ) {
			wp_schedule_single_event( $when, self::CRON_HOOK );
		}
	}
}
