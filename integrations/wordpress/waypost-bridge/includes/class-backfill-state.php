<?php
/**
 * Where a backfill run stands, kept in one option (not autoloaded): its cursor with the running totals, whether
 * it runs, its id, start and end, whole-batch failures in a row, the latest errors. status() is what the settings
 * page and `wp waypost status` show.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * A backfill run's saved state.
 */
class Waypost_Bridge_Backfill_State {

	/** State: cursor, running, counters, errors (see status()). */
	public const OPTION = 'waypost_bridge_backfill';

	/**
	 * The cursor a new run should continue from: the saved one unless it finished (then null: start over).
	 *
	 * @return array|null
	 */
	public static function saved_cursor(): ?array {
		$state = self::get();
		return is_array( $state['cursor'] ) && null !== $state['cursor']['resource'] ? $state['cursor'] : null;
	}

	/**
	 * Progress for the settings page and `wp waypost status`.
	 *
	 * @return array ['running', 'done', 'resource', 'position', 'total', 'percent', 'sent', 'unchanged', 'failed',
	 *               'skipped', 'started_at', 'finished_at', 'next_run', 'last_error',
	 *               'errors' => [[resource, id, error], …]]
	 */
	public static function status(): array {
		$state  = self::get();
		$cursor = is_array( $state['cursor'] ) ? $state['cursor'] : null;
		$total  = null !== $cursor ? $cursor['total'] : 0;
		$pos    = null !== $cursor ? $cursor['position'] : 0;
		$event  = array( $state['run_id'], (int) $state['failures'] ); // The arguments of its next WP-Cron event.
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
			'next_run'    => $state['running'] ? wp_next_scheduled( Waypost_Bridge_Backfill::HOOK, $event ) : false,
			'last_error'  => $state['last_error'],
			'errors'      => $state['errors'],
		);
	}

	/** @return array The saved state, with defaults. */
	public static function get(): array {
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
	public static function save( array $changes ): void {
		$state = array_merge( self::get(), $changes );
		if ( isset( $state['cursor'] ) && is_array( $state['cursor'] ) ) {
			$state['cursor'] = Waypost_Bridge_Backfill_Cursor::normalize( $state['cursor'] );
		}
		update_option( self::OPTION, $state, false );
	}
}
