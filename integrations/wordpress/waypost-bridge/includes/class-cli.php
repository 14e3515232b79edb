<?php
/**
 * WP-CLI commands: `wp waypost backfill`, `wp waypost status`, `wp waypost test-connection`.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Sends and checks Waypost data from the command line.
 */
class Waypost_Bridge_Cli {

	/** Whole-batch failures in a row (Waypost unreachable) before the command gives up; it resumes next time. */
	public const MAX_FAILURES = 5;

	/** Registers the commands when WP-CLI is running. */
	public static function register(): void {
		if ( ! defined( 'WP_CLI' ) || ! WP_CLI || ! class_exists( 'WP_CLI' ) ) {
			return;
		}
		WP_CLI::add_command( 'waypost backfill', array( __CLASS__, 'backfill' ) );
		WP_CLI::add_command( 'waypost status', array( __CLASS__, 'status' ) );
		WP_CLI::add_command( 'waypost test-connection', array( __CLASS__, 'test_connection' ) );
	}

	/**
	 * Sends existing trips, customers, bookings, payments, enquiries and reviews to Waypost, in batches.
	 *
	 * Resumes where an interrupted run stopped (the same cursor as "Send existing records" on the settings page);
	 * records already in Waypost are upserted again without duplicates and without firing events for unchanged ones.
	 *
	 * ## OPTIONS
	 *
	 * [--batch-size=<n>]
	 * : Records per Host API batch request (1-500).
	 * ---
	 * default: 200
	 * ---
	 *
	 * [--restart]
	 * : Start from the first record instead of resuming.
	 *
	 * ## EXAMPLES
	 *
	 *     wp waypost backfill
	 *     wp waypost backfill --batch-size=500 --restart
	 *
	 * @param array $args       Positional arguments.
	 * @param array $assoc_args Options.
	 */
	public static function backfill( $args, $assoc_args ): int {
		$out = self::output();
		if ( ! Waypost_Bridge_Connection::is_configured() ) {
			$out['error'](
				'Waypost is not connected: define WAYPOST_URL and WAYPOST_HOST_TOKEN in wp-config.php'
				. ' (or use Settings > Webhooks & API).'
			);
			return 1;
		}
		if ( ! Waypost_Bridge_Sending_Lock::take() ) {
			$out['error'](
				'Another backfill is sending right now (lock option ' . Waypost_Bridge_Sending_Lock::OPTION . ').'
				. ' Try again in a minute.'
			);
			return 1;
		}
		try {
			if ( Waypost_Bridge_Backfill_State::status()['running'] ) {
				// A run from the settings page (on a site without WP-Cron it stops when the page is closed): this
				// command takes it over from its cursor, and the page shows where it ends.
				Waypost_Bridge_Backfill::cancel();
				$out['log']( 'Taking over the run started from Settings > Webhooks & API.' );
			}
			$size     = isset( $assoc_args['batch-size'] )
				? max( 1, min( 500, (int) $assoc_args['batch-size'] ) )
				: Waypost_Bridge_Backfill_Batch::DEFAULT_SIZE;
			$cursor   = ! empty( $assoc_args['restart'] ) ? null : Waypost_Bridge_Backfill_State::saved_cursor();
			$start    = microtime( true );
			$first    = null === $cursor ? 0 : $cursor['position'];
			$failures = 0;
			if ( null !== $cursor ) {
				$resuming = sprintf(
					'Resuming at %s after #%d (%d of %d examined). Use --restart to start over.',
					$cursor['resource'],
					$cursor['after'],
					$cursor['position'],
					$cursor['total']
				);
				$out['log']( $resuming );
			}
			do {
				$result = Waypost_Bridge_Backfill_Batch::run( $cursor, $size );
				if ( null !== $result['error'] ) {
					++$failures;
					$failed = sprintf( 'Batch failed (%d/%d): %s', $failures, self::MAX_FAILURES, $result['error'] );
					$out['warning']( $failed );
					if ( $failures >= self::MAX_FAILURES ) {
						Waypost_Bridge_Sending_Lock::release(); // WP_CLI::error() exits: `finally` would not run.
						$out['error']( 'Giving up for now; run the command again to resume from the same place.' );
						return 1;
					}
					sleep( min( 30, 2 ** $failures ) );
					continue;
				}
				$failures = 0;
				$cursor   = $result['cursor'];
				$elapsed  = max( 0.001, microtime( true ) - $start );
				$out['log']( self::progress_line( $cursor, $result, ( $cursor['position'] - $first ) / $elapsed ) );
			} while ( ! $result['done'] );
			$message = sprintf(
				'Backfill done in %.1f s: %d sent, %d unchanged, %d failed, %d skipped.',
				microtime( true ) - $start,
				$cursor['sent'],
				$cursor['unchanged'],
				$cursor['failed'],
				$cursor['skipped']
			);
			if ( $cursor['failed'] > 0 ) {
				$out['warning']( $message . ' See `wp waypost status` for the errors.' );
			} else {
				$out['success']( $message );
			}
			return 0;
		} finally {
			Waypost_Bridge_Sending_Lock::release();
		}
	}

	/**
	 * Shows the connection and the backfill's progress and latest errors.
	 *
	 * @param array $args       Positional arguments.
	 * @param array $assoc_args Options.
	 */
	public static function status( $args = array(), $assoc_args = array() ): void {
		$out    = self::output();
		$status = Waypost_Bridge_Backfill_State::status();
		$url   = Waypost_Bridge_Connection::get_url();
		$hint  = Waypost_Bridge_Connection::token_hint();
		$state = $status['running'] ? 'running' : ( $status['done'] ? 'done' : 'not started' );
		if ( ! $status['running'] && ! $status['done'] && $status['position'] > 0 ) {
			$state = 'stopped';
		}
		$out['log'](
			'Waypost URL: ' . ( '' !== $url ? $url : '(not set)' )
			. ( Waypost_Bridge_Connection::url_from_constant() ? ' (WAYPOST_URL)' : '' )
		);
		$out['log'](
			'Host token: ' . ( '' !== $hint ? $hint : '(not set)' )
			. ( Waypost_Bridge_Connection::token_from_constant() ? ' (WAYPOST_HOST_TOKEN)' : '' )
		);
		$out['log'](
			sprintf(
				'Backfill: %s, %d of %d examined (%d%%), %d sent, %d unchanged, %d failed, %d skipped.',
				$state,
				$status['position'],
				$status['total'],
				$status['percent'],
				$status['sent'],
				$status['unchanged'],
				$status['failed'],
				$status['skipped']
			)
		);
		if ( $status['last_error'] ) {
			$out['log']( 'Last error: ' . $status['last_error'] );
		}
		foreach ( $status['errors'] as $error ) {
			$out['log']( sprintf( '  %s #%d: %s', $error['resource'], $error['id'], $error['error'] ) );
		}
	}

	/**
	 * Checks that Waypost is reachable and accepts the host token (writes nothing).
	 *
	 * @param array $args       Positional arguments.
	 * @param array $assoc_args Options.
	 */
	public static function test_connection( $args = array(), $assoc_args = array() ): int {
		$out    = self::output();
		$result = Waypost_Bridge_Connection_Check::run();
		if ( $result['ok'] ) {
			$out['success']( $result['message'] );
			return 0;
		}
		$out['error']( $result['message'] );
		return 1;
	}

	/**
	 * One line per batch: where it is, how far, how fast.
	 *
	 * @param array $cursor Cursor after the batch.
	 * @param array $result run_batch() result.
	 * @param float $rate   Records examined per second in this run.
	 * @return string
	 */
	private static function progress_line( array $cursor, array $result, float $rate ): string {
		$total   = max( 1, $cursor['total'] );
		$percent = $result['done'] ? 100 : (int) floor( 100 * min( $cursor['position'], $total ) / $total );
		return sprintf(
			'%3d%% %d/%d %s | sent %d, unchanged %d, failed %d, skipped %d | %.0f records/s',
			$percent,
			$cursor['position'],
			$cursor['total'],
			null === $cursor['resource'] ? 'done' : $cursor['resource'] . ' after #' . $cursor['after'],
			$cursor['sent'],
			$cursor['unchanged'],
			$cursor['failed'],
			$cursor['skipped'],
			$rate
		);
	}

	/**
	 * WP-CLI's output functions, or plain echo when called outside WP-CLI (tests drive these methods directly).
	 *
	 * @return callable[] log, warning, success, error
	 */
	private static function output(): array {
		if ( class_exists( 'WP_CLI' ) && method_exists( 'WP_CLI', 'log' ) ) {
			return array(
				'log'     => array( 'WP_CLI', 'log' ),
				'warning' => array( 'WP_CLI', 'warning' ),
				'success' => array( 'WP_CLI', 'success' ),
				'error'   => array( 'WP_CLI', 'error' ), // Exits with status 1.
			);
		}
		$echo = static function ( $prefix ) {
			return static function ( $message ) use ( $prefix ) {
				// phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- command-line output.
				echo $prefix . $message . "\n";
			};
		};
		return array(
			'log'     => $echo( '' ),
			'warning' => $echo( 'Warning: ' ),
			'success' => $echo( 'Success: ' ),
			'error'   => $echo( 'Error: ' ),
		);
	}
}
