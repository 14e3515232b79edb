<?php
/**
 * Collecting: the records a request touched (noted by Waypost_Bridge_Hooks), each once, with whether it was deleted;
 * at `shutdown` they go to Waypost_Bridge_Forwarder, which sends each in its final state.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * The records a request touches.
 */
class Waypost_Bridge_Collector {

	/**
	 * Records touched by this request: "resource:id" => array{resource, id, gone: bool, seq: int}.
	 *
	 * @var array<string, array>
	 */
	private static $touched = array();

	/** @var int */
	private static $seq = 0;

	/** @var array<int, string|false> post id => resource (false: not forwarded) */
	private static $resource_of = array();

	/**
	 * Notes a record. A delete is sticky: the record is deleted in Waypost at the end unless the mapper gives it then.
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 * @param bool   $gone     Deleted / trashed / no longer a review.
	 */
	public static function touch( $resource, $id, $gone = false ): void {
		$id = (int) $id;
		if ( $id <= 0 || ! isset( Waypost_Bridge_Planner::ORDER[ $resource ] ) ) {
			return;
		}
		$key = $resource . ':' . $id;
		if ( ! isset( self::$touched[ $key ] ) ) {
			self::$touched[ $key ] = array(
				'resource' => $resource,
				'id'       => $id,
				'gone'     => false,
				'seq'      => ++self::$seq,
			);
		}
		if ( $gone ) {
			self::$touched[ $key ]['gone'] = true;
		}
	}

	/**
	 * What this request has touched so far (for tests and the CLI).
	 *
	 * @return array<string, array>
	 */
	public static function touched(): array {
		return self::$touched;
	}

	/**
	 * Notes a post if it is one of the forwarded kinds; a trip package notes its trip.
	 *
	 * @param int          $post_id Post id.
	 * @param bool         $gone    Deleted or trashed.
	 * @param WP_Post|null $post    Post, if the hook gave it.
	 * @return string|null The resource noted.
	 */
	public static function touch_post( $post_id, $gone = false, $post = null ): ?string {
		if ( $post_id <= 0 ) {
			return null;
		}
		if ( ! array_key_exists( $post_id, self::$resource_of ) ) {
			$post = ( $post instanceof WP_Post ) ? $post : get_post( $post_id );
			if ( ! $post ) {
				return null; // Unknown and already gone: it was never noted while it existed, so it was not ours.
			}
			$resource = false;
			if ( 'trip-packages' === $post->post_type ) {
				// A package's prices and dates are part of its trip.
				$trip_id = (int) get_post_meta( $post_id, 'trip_ID', true );
				if ( $trip_id > 0 && ! $gone ) {
					self::touch( 'trips', $trip_id );
				}
				self::$resource_of[ $post_id ] = false;
				return null;
			}
			if ( 'revision' !== $post->post_type && class_exists( 'Waypost_Bridge_Mapper' ) ) {
				$r        = Waypost_Bridge_Mapper::resource_of_post( $post );
				$known    = is_string( $r ) && isset( Waypost_Bridge_Planner::ORDER[ $r ] ) && 'reviews' !== $r;
				$resource = $known ? $r : false;
			}
			self::$resource_of[ $post_id ] = $resource;
		}
		$resource = self::$resource_of[ $post_id ];
		if ( ! $resource ) {
			return null;
		}
		self::touch( $resource, $post_id, $gone );
		return $resource;
	}

	/**
	 * Notes a comment if it is on a trip (a review, or one that was or may become one).
	 *
	 * @param int             $comment_id Comment id.
	 * @param bool            $gone       It stops being a review (unapproved, spam, trash, deleted).
	 * @param WP_Comment|null $comment    Comment, if known.
	 */
	public static function touch_comment( $comment_id, $gone, $comment = null ): void {
		if ( $comment_id <= 0 ) {
			return;
		}
		if ( isset( self::$touched[ 'reviews:' . $comment_id ] ) ) {
			self::touch( 'reviews', $comment_id, $gone );
			return;
		}
		$comment = $comment ? $comment : get_comment( $comment_id );
		if ( ! $comment ) {
			return;
		}
		if ( ! class_exists( 'Waypost_Bridge_Mapper' ) || ! Waypost_Bridge_Mapper::is_review_comment( $comment ) ) {
			return; // Not on a trip, or a ping or note.
		}
		self::touch( 'reviews', $comment_id, $gone );
	}

	/**
	 * Comment ids of a trip with a given comment_approved value (straight from the table: trashing a post changes
	 * them without a hook).
	 *
	 * @param int    $trip_id  Trip post id.
	 * @param string $approved comment_approved value.
	 * @return int[]
	 */
	public static function trip_comment_ids( $trip_id, $approved ): array {
		global $wpdb;
		$sql = "SELECT comment_ID FROM {$wpdb->comments}
			WHERE comment_post_ID = %d AND comment_approved = %s LIMIT 500";
		// phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared
		$ids = $wpdb->get_col( $wpdb->prepare( $sql, $trip_id, $approved ) );
		return array_map( 'intval', (array) $ids );
	}

	/**
	 * An id from an int, a numeric string, a WP_Post or a model with get_id().
	 *
	 * @param mixed $thing Thing.
	 * @return int
	 */
	public static function id_of( $thing ): int {
		if ( is_numeric( $thing ) ) {
			return (int) $thing;
		}
		if ( $thing instanceof WP_Post ) {
			return (int) $thing->ID;
		}
		if ( is_object( $thing ) && method_exists( $thing, 'get_id' ) ) {
			return (int) $thing->get_id();
		}
		return 0;
	}

	/**
	 * `shutdown`: hands what this request touched to the forwarder (once; a second shutdown call finds nothing).
	 */
	public static function flush(): void {
		if ( empty( self::$touched ) ) {
			return;
		}
		$touched       = self::$touched;
		self::$touched = array();
		Waypost_Bridge_Forwarder::flush( $touched );
	}
}
