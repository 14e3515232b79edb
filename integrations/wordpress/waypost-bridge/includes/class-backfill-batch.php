<?php
/**
 * One backfill batch: the next records after a cursor, mapped and sent in one Host API batch call, the cursor
 * and its counters moved on. Both drivers use it: `wp waypost backfill` (class-cli.php) and the settings page's
 * run (class-backfill.php).
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Sends one batch of existing records.
 */
class Waypost_Bridge_Backfill_Batch {

	public const DEFAULT_SIZE = 200;

	/** Errors kept for the page (the latest). */
	public const MAX_ERRORS = 20;

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
	public static function run( ?array $cursor, int $size = self::DEFAULT_SIZE ): array {
		$size   = max( 1, min( Waypost_Bridge_Batch_Client::BATCH_MAX, (int) $size ) );
		$cursor = Waypost_Bridge_Backfill_Cursor::normalize( $cursor );
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
			$ids      = Waypost_Bridge_Backfill_Cursor::candidate_ids( $resource, $next['after'], $want );
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
				$next = Waypost_Bridge_Backfill_Cursor::next_resource( $next );
			}
		}

		$sent      = 0;
		$unchanged = 0;
		$failed    = count( $errors );
		if ( $ops ) {
			$answer = Waypost_Bridge_Batch_Client::send( $ops, max( 15.0, 0.1 * count( $ops ) ) );
			if ( null !== $answer['error'] ) {
				$result['failed'] = count( $ops );
				$result['error']  = $answer['error'];
				Waypost_Bridge_Backfill_State::save( array( 'last_error' => $answer['error'] ) );
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
					$detail   = isset( $item['error']['detail'] )
						? (string) $item['error']['detail']
						: 'HTTP ' . (int) ( $item['status'] ?? 0 );
					$errors[] = self::error_entry( $op['resource'], $op['id'], $detail );
				}
			}
		}

		$next['position']  += $examined;
		$next['sent']      += $sent;
		$next['unchanged'] += $unchanged;
		$next['failed']    += $failed;
		$next['skipped']   += $skipped;
		$state              = Waypost_Bridge_Backfill_State::get();
		Waypost_Bridge_Backfill_State::save(
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
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 * @param string $error    What went wrong.
	 * @return array
	 */
	private static function error_entry( string $resource, int $id, string $error ): array {
		return array(
			'resource' => $resource,
			'id'       => (int) $id,
			'error'    => substr( (string) $error, 0, 500 ),
			'at'       => time(),
		);
	}

	/** Frees what this batch loaded (a run over 100,000 records must not keep them all in memory). */
	private static function after_batch(): void {
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
}
