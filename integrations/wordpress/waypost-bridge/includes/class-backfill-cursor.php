<?php
/**
 * Which records a backfill examines and where it is: the resources in ORDER, each by ascending id after the
 * cursor's `after`, counted when a run starts (the cursor carries the totals).
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * A backfill's cursor over the candidate records.
 */
class Waypost_Bridge_Backfill_Cursor {

	public const ORDER = array( 'trips', 'customers', 'payments', 'bookings', 'enquiries', 'reviews' );

	/**
	 * How many records a run examines: the candidate rows of every resource (computed when a run starts).
	 *
	 * @return int
	 */
	public static function count_candidates(): int {
		global $wpdb;
		$total = 0;
		foreach ( self::ORDER as $resource ) {
			if ( 'reviews' === $resource ) {
				// phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.NotPrepared
				$total += (int) $wpdb->get_var( 'SELECT COUNT(*) ' . self::approved_reviews() );
			} else {
				$sql    = 'SELECT COUNT(*) ' . self::posts_of_type();
				// phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.NotPrepared
				$total += (int) $wpdb->get_var( $wpdb->prepare( $sql, self::post_type( $resource ) ) );
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
	public static function candidate_ids( string $resource, int $after, int $limit ): array {
		global $wpdb;
		if ( 'reviews' === $resource ) {
			$sql = 'SELECT c.comment_ID ' . self::approved_reviews()
				. ' AND c.comment_ID > %d ORDER BY c.comment_ID ASC LIMIT %d';
			$sql = $wpdb->prepare( $sql, $after, $limit ); // phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared
		} else {
			$sql = 'SELECT ID ' . self::posts_of_type() . ' AND ID > %d ORDER BY ID ASC LIMIT %d';
			// phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared
			$sql = $wpdb->prepare( $sql, self::post_type( $resource ), $after, $limit );
		}
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.NotPrepared
		return array_map( 'intval', (array) $wpdb->get_col( $sql ) );
	}

	/** @return string FROM and WHERE of the approved reviews (comments on trips). */
	private static function approved_reviews(): string {
		global $wpdb;
		return "FROM {$wpdb->comments} c JOIN {$wpdb->posts} p ON p.ID = c.comment_post_ID WHERE p.post_type = 'trip'"
			. " AND c.comment_approved = '1' AND c.comment_type IN ('', 'comment', 'review')";
	}

	/** @return string FROM and WHERE of the sendable posts of one type (a %s placeholder). */
	private static function posts_of_type(): string {
		global $wpdb;
		return "FROM {$wpdb->posts} WHERE post_type = %s AND post_status NOT IN ('trash', 'auto-draft', 'inherit')";
	}

	/**
	 * @param string $resource Resource other than reviews.
	 * @return string Its post type.
	 */
	private static function post_type( string $resource ): string {
		return (string) array_search( $resource, Waypost_Bridge_Mapper::POST_TYPES, true );
	}

	/**
	 * @param array|null $cursor As given by a caller (or null).
	 * @return array A complete cursor.
	 */
	public static function normalize( $cursor ): array {
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
		$resource = $cursor['resource'] ?? null;
		$resource = in_array( $resource, self::ORDER, true ) ? $resource : null;
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
	public static function next_resource( array $cursor ): array {
		$index              = array_search( $cursor['resource'], self::ORDER, true );
		$cursor['resource'] = array_key_exists( $index + 1, self::ORDER ) ? self::ORDER[ $index + 1 ] : null;
		$cursor['after']    = 0;
		return $cursor;
	}
}
