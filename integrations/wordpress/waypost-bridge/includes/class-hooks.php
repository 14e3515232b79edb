<?php
/**
 * The WordPress and WP Travel Engine hooks the bridge listens to. Each one only notes the record it concerns
 * (Waypost_Bridge_Collector); at `shutdown` the collector hands the request's records to the forwarder.
 *
 * WP Travel Engine writes a booking in many steps (an empty published post first, `save_post` twice, then its meta,
 * then a payment post published before its own meta); only at the end of the request is it complete, so nothing here
 * reads or sends a record. Every hook catches every Throwable: nothing here may ever break a checkout.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Hook handlers.
 */
class Waypost_Bridge_Hooks {

	/** Post meta that changes without the record changing (edit locks, trash bookkeeping). */
	public const IGNORED_META = array(
		'_edit_lock',
		'_edit_last',
		'_encloseme',
		'_pingme',
		'_wp_old_slug',
		'_wp_old_date',
		'_wp_trash_meta_status',
		'_wp_trash_meta_time',
		'_wp_desired_post_slug',
		'_wp_trash_meta_comments_status',
	);

	/** @var bool */
	private static $registered = false;

	/**
	 * Hooks. The plugin's main file calls this once.
	 */
	public static function register(): void {
		if ( self::$registered ) {
			return;
		}
		self::$registered = true;

		// Posts and their meta (trips, packages, bookings, customers, payments, enquiries).
		add_action( 'save_post', self::safely( 'on_save_post' ), 99, 2 );
		add_action( 'added_post_meta', self::safely( 'on_post_meta' ), 10, 3 );
		add_action( 'updated_post_meta', self::safely( 'on_post_meta' ), 10, 3 );
		add_action( 'deleted_post_meta', self::safely( 'on_post_meta' ), 10, 3 );

		// The product's own "this is complete now" hooks.
		add_action( 'wp_travel_engine_after_booking_process_completed', self::safely( 'on_booking_hook' ), 10, 1 );
		$remaining = 'wp_travel_engine_after_remaining_payment_process_completed';
		add_action( $remaining, self::safely( 'on_booking_hook' ), 10, 1 );
		add_action( 'wptravelengine.booking.updated', self::safely( 'on_booking_updated' ), 10, 2 );
		add_action( 'wptravelengine.booking.created', self::safely( 'on_booking_updated' ), 10, 2 );
		add_action( 'wte_after_enquiry_created', self::safely( 'on_enquiry_created' ), 10, 1 );

		// Reviews: comments on trips.
		add_action( 'comment_post', self::safely( 'on_comment' ), 10, 1 );
		// Programmatic inserts (imports, add-ons).
		add_action( 'wp_insert_comment', self::safely( 'on_comment' ), 10, 1 );
		add_action( 'edit_comment', self::safely( 'on_comment' ), 10, 1 );
		add_action( 'wp_set_comment_status', self::safely( 'on_comment_status' ), 10, 2 );
		add_action( 'transition_comment_status', self::safely( 'on_comment_transition' ), 10, 3 );
		add_action( 'delete_comment', self::safely( 'on_delete_comment' ), 10, 2 );

		// Trash and delete (the product has no delete hooks of its own).
		add_action( 'trashed_post', self::safely( 'on_trashed_post' ), 10, 1 );
		add_action( 'untrashed_post', self::safely( 'on_untrashed_post' ), 10, 1 );
		add_action( 'before_delete_post', self::safely( 'on_delete_post' ), 10, 1 );
		add_action( 'deleted_post', self::safely( 'on_delete_post' ), 10, 1 );

		// Late, so that whatever else runs at shutdown has written its data.
		add_action( 'shutdown', self::safely( 'on_shutdown' ), PHP_INT_MAX - 100 );
	}

	/**
	 * Wraps a handler so that no Throwable ever escapes into WordPress (or a checkout).
	 *
	 * @param string $method Handler name.
	 * @return callable
	 */
	private static function safely( $method ): callable {
		return static function ( ...$args ) use ( $method ) {
			try {
				call_user_func_array( array( __CLASS__, $method ), $args );
			} catch ( \Throwable $e ) {
				Waypost_Bridge_Forwarder::log( "{$method}: " . get_class( $e ) . ': ' . $e->getMessage() );
			}
		};
	}

	/**
	 * `save_post`.
	 *
	 * @param int     $post_id Post id.
	 * @param WP_Post $post    Post.
	 */
	public static function on_save_post( $post_id, $post = null ): void {
		if ( wp_is_post_revision( $post_id ) || wp_is_post_autosave( $post_id ) ) {
			return;
		}
		Waypost_Bridge_Collector::touch_post( (int) $post_id, false, $post );
	}

	/**
	 * `added_post_meta`, `updated_post_meta`, `deleted_post_meta`.
	 *
	 * @param int|int[] $meta_id   Meta id(s).
	 * @param int       $object_id Post id.
	 * @param string    $meta_key  Meta key.
	 */
	public static function on_post_meta( $meta_id, $object_id, $meta_key ): void {
		if ( in_array( (string) $meta_key, self::IGNORED_META, true ) ) {
			return;
		}
		Waypost_Bridge_Collector::touch_post( (int) $object_id );
	}

	/**
	 * `wp_travel_engine_after_booking_process_completed` and the remaining-payment one: ($booking_id).
	 *
	 * @param int $booking_id Booking id.
	 */
	public static function on_booking_hook( $booking_id ): void {
		$id = Waypost_Bridge_Collector::id_of( $booking_id );
		if ( $id ) {
			Waypost_Bridge_Collector::touch( 'bookings', $id );
		}
	}

	/**
	 * `wptravelengine.booking.updated` / `.created`: ($data, $booking model).
	 *
	 * @param mixed $data    Booking data (array with 'id').
	 * @param mixed $booking Booking model.
	 */
	public static function on_booking_updated( $data = null, $booking = null ): void {
		$id = Waypost_Bridge_Collector::id_of( $booking );
		if ( ! $id && is_array( $data ) && isset( $data['id'] ) ) {
			$id = (int) $data['id'];
		}
		if ( $id ) {
			Waypost_Bridge_Collector::touch( 'bookings', $id );
		}
	}

	/**
	 * `wte_after_enquiry_created`: ($post_id); its meta is added after the hook, it is sent at shutdown.
	 *
	 * @param int $enquiry_id Enquiry post id.
	 */
	public static function on_enquiry_created( $enquiry_id ): void {
		$id = Waypost_Bridge_Collector::id_of( $enquiry_id );
		if ( $id ) {
			Waypost_Bridge_Collector::touch( 'enquiries', $id );
		}
	}

	/**
	 * `comment_post`, `edit_comment`.
	 *
	 * @param int $comment_id Comment id.
	 */
	public static function on_comment( $comment_id ): void {
		Waypost_Bridge_Collector::touch_comment( (int) $comment_id, false );
	}

	/**
	 * `wp_set_comment_status`: ($comment_id, 'hold'|'approve'|'spam'|'trash'|'delete').
	 *
	 * @param int    $comment_id Comment id.
	 * @param string $status     New status.
	 */
	public static function on_comment_status( $comment_id, $status = '' ): void {
		$unapproved = ! in_array( (string) $status, array( 'approve', '1' ), true );
		Waypost_Bridge_Collector::touch_comment( (int) $comment_id, $unapproved );
	}

	/**
	 * `transition_comment_status`: a review stops being one when it leaves "approved".
	 *
	 * @param string     $new_status New.
	 * @param string     $old_status Old.
	 * @param WP_Comment $comment    Comment.
	 */
	public static function on_comment_transition( $new_status, $old_status, $comment = null ): void {
		if ( is_object( $comment ) && isset( $comment->comment_ID ) ) {
			$unapproved = 'approved' === $old_status && 'approved' !== $new_status;
			Waypost_Bridge_Collector::touch_comment( (int) $comment->comment_ID, $unapproved );
		}
	}

	/**
	 * `delete_comment`: fires before the comment is removed; a deleted approved review is deleted in Waypost.
	 *
	 * @param int        $comment_id Comment id.
	 * @param WP_Comment $comment    Comment.
	 */
	public static function on_delete_comment( $comment_id, $comment = null ): void {
		$comment = $comment ? $comment : get_comment( $comment_id );
		if ( $comment && in_array( (string) $comment->comment_approved, array( '1', 'approve' ), true ) ) {
			Waypost_Bridge_Collector::touch_comment( (int) $comment_id, true, $comment );
		}
	}

	/**
	 * `trashed_post`. A trashed trip's comments were set to "post-trashed" (no hook): its reviews go too.
	 *
	 * @param int $post_id Post id.
	 */
	public static function on_trashed_post( $post_id ): void {
		$resource = Waypost_Bridge_Collector::touch_post( (int) $post_id, true );
		if ( 'trips' === $resource ) {
			foreach ( Waypost_Bridge_Collector::trip_comment_ids( (int) $post_id, 'post-trashed' ) as $comment_id ) {
				Waypost_Bridge_Collector::touch( 'reviews', $comment_id, true );
			}
		}
	}

	/**
	 * `untrashed_post`: the record (and a trip's restored reviews) is sent again if the mapper gives it.
	 *
	 * @param int $post_id Post id.
	 */
	public static function on_untrashed_post( $post_id ): void {
		$resource = Waypost_Bridge_Collector::touch_post( (int) $post_id, false );
		if ( 'trips' === $resource ) {
			foreach ( Waypost_Bridge_Collector::trip_comment_ids( (int) $post_id, '1' ) as $comment_id ) {
				Waypost_Bridge_Collector::touch( 'reviews', $comment_id );
			}
		}
	}

	/**
	 * `before_delete_post` (the post still exists: its type is known) and `deleted_post`.
	 *
	 * @param int $post_id Post id.
	 */
	public static function on_delete_post( $post_id ): void {
		Waypost_Bridge_Collector::touch_post( (int) $post_id, true );
	}

	/**
	 * `shutdown`: the request's records go to the forwarder.
	 */
	public static function on_shutdown(): void {
		Waypost_Bridge_Collector::flush();
	}
}
