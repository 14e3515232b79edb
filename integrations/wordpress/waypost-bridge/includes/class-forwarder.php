<?php
/**
 * Forwarding: sends what a request changed to Waypost, once per record, in its final state, at the end of the request.
 *
 * WP Travel Engine writes a booking in many steps (an empty published post first, `save_post` twice, then its meta,
 * then a payment post published before its own meta); only at the end of the request is it complete. So the hooks
 * below only *note* which records a request touched; at `shutdown` (after the visitor's response has been sent, where
 * the server allows it) each noted record is read once through the mapper and sent: a PUT of its final state, a
 * DELETE if it was deleted or trashed, nothing if the mapper says it is still half-written.
 *
 * Every send holds a per-record database lock and reads the record after taking it, and the queue does the same, so
 * two requests (or a request and WP-Cron) never send one record's states out of order. A send that fails goes to the
 * durable queue (Waypost_Bridge_Queue); nothing here may ever break or slow down a checkout: every hook catches every
 * Throwable, and a request spends at most BUDGET seconds talking to Waypost.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Collects touched records during a request and sends them at shutdown.
 */
class Waypost_Bridge_Forwarder {

	/** Seconds for one request to Waypost (connect + response). */
	const TIMEOUT = 2.0;

	/** Seconds one WordPress request may spend sending in total; what does not fit goes to the queue. */
	const BUDGET = 2.0;

	/** Most records sent directly by one request (a bulk edit of hundreds goes to the queue instead). */
	const MAX_DIRECT = 40;

	/** After a timeout, requests stop trying Waypost directly for this long (the queue keeps probing). */
	const COOL_DOWN = 60;

	const UNREACHABLE_OPTION = 'waypost_bridge_unreachable_until';

	/**
	 * Send order of resources: what others refer to goes first. A booking's payments go just before it, so that the
	 * booking Waypost stores (and its booking.created event) already lists its payment_ids.
	 */
	const ORDER = array(
		'trips'     => 0,
		'customers' => 1,
		'payments'  => 2,
		'bookings'  => 3,
		'enquiries' => 4,
		'reviews'   => 5,
	);

	/** Post meta that changes without the record changing (edit locks, trash bookkeeping). */
	const IGNORED_META = array( '_edit_lock', '_edit_last', '_encloseme', '_pingme', '_wp_old_slug', '_wp_old_date', '_wp_trash_meta_status', '_wp_trash_meta_time', '_wp_desired_post_slug', '_wp_trash_meta_comments_status' );

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

	/** @var int|null Cached value of the unreachable option (null: not read yet). */
	private static $unreachable_until = null;

	/** @var bool */
	private static $registered = false;

	/**
	 * Hooks. The plugin's main file calls this once.
	 */
	public static function register() {
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
		add_action( 'wp_travel_engine_after_remaining_payment_process_completed', self::safely( 'on_booking_hook' ), 10, 1 );
		add_action( 'wptravelengine.booking.updated', self::safely( 'on_booking_updated' ), 10, 2 );
		add_action( 'wptravelengine.booking.created', self::safely( 'on_booking_updated' ), 10, 2 );
		add_action( 'wte_after_enquiry_created', self::safely( 'on_enquiry_created' ), 10, 1 );

		// Reviews: comments on trips.
		add_action( 'comment_post', self::safely( 'on_comment' ), 10, 1 );
		add_action( 'wp_insert_comment', self::safely( 'on_comment' ), 10, 1 ); // Programmatic inserts (imports, add-ons).
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
		add_action( 'shutdown', self::safely( 'flush' ), PHP_INT_MAX - 100 );
	}

	/**
	 * Wraps a handler so that no Throwable ever escapes into WordPress (or a checkout).
	 *
	 * @param string $method Handler name.
	 * @return callable
	 */
	private static function safely( $method ) {
		return static function ( ...$args ) use ( $method ) {
			try {
				call_user_func_array( array( __CLASS__, $method ), $args );
			} catch ( \Throwable $e ) {
				self::log( "{$method}: " . get_class( $e ) . ': ' . $e->getMessage() );
			}
		};
	}

	// ------------------------------------------------------------------------------------------------ hook handlers

	/**
	 * `save_post`.
	 *
	 * @param int     $post_id Post id.
	 * @param WP_Post $post    Post.
	 */
	public static function on_save_post( $post_id, $post = null ) {
		if ( wp_is_post_revision( $post_id ) || wp_is_post_autosave( $post_id ) ) {
			return;
		}
		self::touch_post( (int) $post_id, false, $post );
	}

	/**
	 * `added_post_meta`, `updated_post_meta`, `deleted_post_meta`.
	 *
	 * @param int|int[] $meta_id   Meta id(s).
	 * @param int       $object_id Post id.
	 * @param string    $meta_key  Meta key.
	 */
	public static function on_post_meta( $meta_id, $object_id, $meta_key ) {
		if ( in_array( (string) $meta_key, self::IGNORED_META, true ) ) {
			return;
		}
		self::touch_post( (int) $object_id );
	}

	/**
	 * `wp_travel_engine_after_booking_process_completed` and the remaining-payment one: ($booking_id).
	 *
	 * @param int $booking_id Booking id.
	 */
	public static function on_booking_hook( $booking_id ) {
		$id = self::id_of( $booking_id );
		if ( $id ) {
			self::touch( 'bookings', $id );
		}
	}

	/**
	 * `wptravelengine.booking.updated` / `.created`: ($data, $booking model).
	 *
	 * @param mixed $data    Booking data (array with 'id').
	 * @param mixed $booking Booking model.
	 */
	public static function on_booking_updated( $data = null, $booking = null ) {
		$id = self::id_of( $booking );
		if ( ! $id && is_array( $data ) && isset( $data['id'] ) ) {
			$id = (int) $data['id'];
		}
		if ( $id ) {
			self::touch( 'bookings', $id );
		}
	}

	/**
	 * `wte_after_enquiry_created`: ($post_id); its meta is added after the hook, it is sent at shutdown.
	 *
	 * @param int $enquiry_id Enquiry post id.
	 */
	public static function on_enquiry_created( $enquiry_id ) {
		$id = self::id_of( $enquiry_id );
		if ( $id ) {
			self::touch( 'enquiries', $id );
		}
	}

	/**
	 * `comment_post`, `edit_comment`.
	 *
	 * @param int $comment_id Comment id.
	 */
	public static function on_comment( $comment_id ) {
		self::touch_comment( (int) $comment_id, false );
	}

	/**
	 * `wp_set_comment_status`: ($comment_id, 'hold'|'approve'|'spam'|'trash'|'delete').
	 *
	 * @param int    $comment_id Comment id.
	 * @param string $status     New status.
	 */
	public static function on_comment_status( $comment_id, $status = '' ) {
		self::touch_comment( (int) $comment_id, ! in_array( (string) $status, array( 'approve', '1' ), true ) );
	}

	/**
	 * `transition_comment_status`: a review stops being one when it leaves "approved".
	 *
	 * @param string     $new_status New.
	 * @param string     $old_status Old.
	 * @param WP_Comment $comment    Comment.
	 */
	public static function on_comment_transition( $new_status, $old_status, $comment = null ) {
		if ( is_object( $comment ) && isset( $comment->comment_ID ) ) {
			self::touch_comment( (int) $comment->comment_ID, 'approved' === $old_status && 'approved' !== $new_status );
		}
	}

	/**
	 * `delete_comment`: fires before the comment is removed; a deleted approved review is deleted in Waypost.
	 *
	 * @param int        $comment_id Comment id.
	 * @param WP_Comment $comment    Comment.
	 */
	public static function on_delete_comment( $comment_id, $comment = null ) {
		$comment = $comment ? $comment : get_comment( $comment_id );
		if ( $comment && in_array( (string) $comment->comment_approved, array( '1', 'approve' ), true ) ) {
			self::touch_comment( (int) $comment_id, true, $comment );
		}
	}

	/**
	 * `trashed_post`. A trashed trip's comments were set to "post-trashed" (no hook): its reviews go too.
	 *
	 * @param int $post_id Post id.
	 */
	public static function on_trashed_post( $post_id ) {
		$resource = self::touch_post( (int) $post_id, true );
		if ( 'trips' === $resource ) {
			foreach ( self::trip_comment_ids( (int) $post_id, 'post-trashed' ) as $comment_id ) {
				self::touch( 'reviews', $comment_id, true );
			}
		}
	}

	/**
	 * `untrashed_post`: the record (and a trip's restored reviews) is sent again if the mapper gives it.
	 *
	 * @param int $post_id Post id.
	 */
	public static function on_untrashed_post( $post_id ) {
		$resource = self::touch_post( (int) $post_id, false );
		if ( 'trips' === $resource ) {
			foreach ( self::trip_comment_ids( (int) $post_id, '1' ) as $comment_id ) {
				self::touch( 'reviews', $comment_id );
			}
		}
	}

	/**
	 * `before_delete_post` (the post still exists: its type is known) and `deleted_post`.
	 *
	 * @param int $post_id Post id.
	 */
	public static function on_delete_post( $post_id ) {
		self::touch_post( (int) $post_id, true );
	}

	// ------------------------------------------------------------------------------------------------ collecting

	/**
	 * Notes a record. A delete is sticky: the record is deleted in Waypost at the end unless the mapper gives it then.
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 * @param bool   $gone     Deleted / trashed / no longer a review.
	 */
	public static function touch( $resource, $id, $gone = false ) {
		$id = (int) $id;
		if ( $id <= 0 || ! isset( self::ORDER[ $resource ] ) ) {
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
	public static function touched() {
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
	private static function touch_post( $post_id, $gone = false, $post = null ) {
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
				$resource = is_string( $r ) && isset( self::ORDER[ $r ] ) && 'reviews' !== $r ? $r : false;
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
	private static function touch_comment( $comment_id, $gone, $comment = null ) {
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
	private static function trip_comment_ids( $trip_id, $approved ) {
		global $wpdb;
		$ids = $wpdb->get_col( $wpdb->prepare( "SELECT comment_ID FROM {$wpdb->comments} WHERE comment_post_ID = %d AND comment_approved = %s LIMIT 500", $trip_id, $approved ) );
		return array_map( 'intval', (array) $ids );
	}

	/**
	 * An id from an int, a numeric string, a WP_Post or a model with get_id().
	 *
	 * @param mixed $thing Thing.
	 * @return int
	 */
	private static function id_of( $thing ) {
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

	// ------------------------------------------------------------------------------------------------ sending

	/**
	 * `shutdown`: sends every touched record once, in its final state.
	 */
	public static function flush() {
		if ( empty( self::$touched ) ) {
			return;
		}
		$touched       = self::$touched;
		self::$touched = array();
		if ( ! self::configured() ) {
			return; // Not connected yet: "Send existing records" (backfill) catches up after setup.
		}
		/**
		 * Whether this request's changes are forwarded to Waypost (e.g. false during a bulk import, followed by
		 * "Send existing records").
		 *
		 * @param bool  $enabled Default true.
		 * @param array $touched The records touched: "resource:id" => [resource, id, gone, seq].
		 */
		if ( ! apply_filters( 'waypost_bridge_forward_enabled', true, $touched ) ) {
			return;
		}
		if ( function_exists( 'ignore_user_abort' ) ) {
			ignore_user_abort( true );
		}
		self::finish_response();

		$start    = microtime( true );
		$deadline = $start + self::BUDGET;
		$plan     = self::plan( $touched );
		$down     = self::unreachable_until();
		$why      = $down > time() ? 'Waypost did not answer a moment ago; waiting for the retry.' : null;
		$due      = $down > time() ? $down : null;
		$direct   = 0;
		foreach ( $plan as $item ) {
			try {
				$left = $deadline - microtime( true );
				if ( $down > time() || $left < 0.25 || $direct >= self::MAX_DIRECT ) {
					// Not attempted: Waypost is unreachable, or this request's time is used up. Queued without
					// counting an attempt, due with the record that failed (so the request's records stay in order),
					// at the end of the cool-down after a timeout, or at once.
					Waypost_Bridge_Queue::push( $item['resource'], $item['id'], $item['gone'] ? 'delete' : 'put', $why, 'deferred', $due );
					continue;
				}
				++$direct;
				$outcome = self::deliver( $item['resource'], $item['id'], $item['gone'] ? 'delete' : 'put', $deadline );
				if ( ! empty( $outcome['unreachable'] ) ) {
					// Waypost is down: queue the rest of this request without trying. After a timeout (not a refused
					// connection, which costs nothing) the next requests skip trying too, for COOL_DOWN seconds.
					$why      = $outcome['error'];
					$deadline = 0.0;
					$due      = isset( $outcome['queued_until'] ) && is_int( $outcome['queued_until'] ) ? $outcome['queued_until'] : null;
					if ( $outcome['slow'] ) {
						self::mark_unreachable();
					}
				}
			} catch ( \Throwable $e ) {
				self::log( "sending {$item['resource']} {$item['id']}: " . $e->getMessage() );
				try {
					Waypost_Bridge_Queue::push( $item['resource'], $item['id'], $item['gone'] ? 'delete' : 'put', 'Bridge error: ' . $e->getMessage(), 'failed' );
				} catch ( \Throwable $e2 ) {
					self::log( 'queue: ' . $e2->getMessage() );
				}
			}
		}
	}

	/**
	 * Ends the visitor's response before talking to Waypost, where the server can (PHP-FPM, LiteSpeed).
	 */
	private static function finish_response() {
		if ( defined( 'WP_CLI' ) && WP_CLI ) {
			return;
		}
		if ( function_exists( 'fastcgi_finish_request' ) ) {
			fastcgi_finish_request();
		} elseif ( function_exists( 'litespeed_finish_request' ) ) {
			litespeed_finish_request();
		}
	}

	/**
	 * The send order for a request's touched records: a booking brings its customer and payments, a payment its
	 * booking; puts go trips, customers, payments, bookings, enquiries, reviews (what is referred to first); deletes
	 * after, in the opposite order.
	 *
	 * @param array $touched Touched records.
	 * @return array[] array{resource, id, gone}
	 */
	private static function plan( array $touched ) {
		$items = $touched;
		if ( count( $items ) <= self::MAX_DIRECT ) {
			// A payment changes its booking's paid and due amounts.
			foreach ( $touched as $item ) {
				if ( 'payments' === $item['resource'] && ! $item['gone'] ) {
					$body = self::map( 'payments', $item['id'] );
					if ( is_array( $body ) && ! empty( $body['booking_id'] ) ) {
						self::add_related( $items, 'bookings', (int) $body['booking_id'] );
					}
				}
			}
			foreach ( $items as $item ) {
				if ( 'bookings' === $item['resource'] && ! $item['gone'] ) {
					$body = self::map( 'bookings', $item['id'] );
					if ( ! is_array( $body ) ) {
						continue;
					}
					if ( isset( $body['customer']['id'] ) && is_numeric( $body['customer']['id'] ) ) {
						self::add_related( $items, 'customers', (int) $body['customer']['id'] );
					}
					$payment_ids = get_post_meta( $item['id'], 'payments', true );
					foreach ( is_array( $payment_ids ) ? $payment_ids : array() as $payment_id ) {
						if ( is_numeric( $payment_id ) ) {
							self::add_related( $items, 'payments', (int) $payment_id );
						}
					}
				}
			}
		}
		$items = array_values( $items );
		usort(
			$items,
			static function ( $a, $b ) {
				if ( $a['gone'] !== $b['gone'] ) {
					return $a['gone'] ? 1 : -1;
				}
				$oa = self::ORDER[ $a['resource'] ];
				$ob = self::ORDER[ $b['resource'] ];
				if ( $oa !== $ob ) {
					return $a['gone'] ? $ob - $oa : $oa - $ob;
				}
				return $a['seq'] - $b['seq'];
			}
		);
		return $items;
	}

	/**
	 * Adds a related record to a plan (if not there yet).
	 *
	 * @param array  $items    Plan, by key.
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 */
	private static function add_related( array &$items, $resource, $id ) {
		$key = $resource . ':' . $id;
		if ( $id > 0 && ! isset( $items[ $key ] ) ) {
			$items[ $key ] = array(
				'resource' => $resource,
				'id'       => $id,
				'gone'     => false,
				'seq'      => ++self::$seq,
			);
		}
	}

	/**
	 * Sends one record now (from a request): with its lock held, reads it, sends it, and keeps the queue in step.
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 * @param string $op       put|delete (delete: the record was deleted/trashed during the request).
	 * @param float  $deadline microtime(true) by which this request must be done with Waypost.
	 * @return array{result:string, error:?string, unreachable:bool, slow:bool}
	 */
	public static function deliver( $resource, $id, $op, $deadline ) {
		// Wait up to a second for the record's lock if there is time: another request (or the queue) sending the
		// same record usually needs a few milliseconds.
		$lock    = self::lock( $resource, $id, $deadline - microtime( true ) > 1.5 ? 1 : 0 );
		$timeout = min( self::TIMEOUT, $deadline - microtime( true ) );
		if ( false === $lock || $timeout < 0.25 ) {
			// Still busy (or no time left): queue it; it is sent after the one in flight, in its latest state.
			self::unlock( $resource, $id, $lock );
			Waypost_Bridge_Queue::push( $resource, $id, $op, null, 'deferred' );
			return self::outcome( 'busy' );
		}
		try {
			$queued  = self::queued_revision( $resource, $id ); // Read before the record: see forget_if().
			$outcome = self::send( $resource, $id, $op, $timeout );
			switch ( $outcome['result'] ) {
				case 'sent':
					self::forget_if( $resource, $id, $queued );
					break;
				case 'failed':
				case 'refused':
					$outcome['queued_until'] = Waypost_Bridge_Queue::push( $resource, $id, $outcome['method'], $outcome['error'], $outcome['result'] );
					break;
			}
			return $outcome;
		} finally {
			self::unlock( $resource, $id, $lock );
		}
	}

	/**
	 * Sends one queued row (from WP-Cron or "Retry now"): with the record's lock held, re-reads the row and the
	 * record, sends the latest state and settles the row.
	 *
	 * @param object $row     Row (id, resource, record_id, op, revision).
	 * @param float  $timeout Seconds.
	 * @return array{result:string, error:?string, unreachable:bool, slow:bool}
	 */
	public static function deliver_queued( $row, $timeout ) {
		global $wpdb;
		$resource = (string) $row->resource;
		$id       = (int) $row->record_id;
		$lock     = self::lock( $resource, $id, 0 );
		if ( false === $lock ) {
			return self::outcome( 'busy' );
		}
		try {
			$table   = Waypost_Bridge_Queue::table();
			$current = $wpdb->get_row( $wpdb->prepare( "SELECT id, op, revision FROM {$table} WHERE id = %d", (int) $row->id ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
			if ( ! $current ) {
				return self::outcome( 'nothing' ); // Sent meanwhile by a request.
			}
			$outcome = self::send( $resource, $id, (string) $current->op, $timeout );
			Waypost_Bridge_Queue::settle( $current, $outcome['result'], $outcome['error'] );
			if ( 'sent' === $outcome['result'] ) {
				self::mark_reachable();
			} elseif ( ! empty( $outcome['unreachable'] ) && $outcome['slow'] ) {
				self::mark_unreachable();
			}
			return $outcome;
		} finally {
			self::unlock( $resource, $id, $lock );
		}
	}

	/**
	 * Reads the record and sends it. PUT when the mapper gives a body; DELETE when it gives none and the record was
	 * deleted, trashed or (a review) unapproved; nothing when it gives none otherwise (half-written, a draft…).
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 * @param string $op       put|delete.
	 * @param float  $timeout  Seconds.
	 * @return array{result:string, error:?string, unreachable:bool, slow:bool, method:string}
	 */
	private static function send( $resource, $id, $op, $timeout ) {
		try {
			$body = self::map( $resource, $id, true );
		} catch ( \Throwable $e ) {
			return self::outcome( 'refused', 'Could not read ' . self::label( $resource, $id ) . ': ' . $e->getMessage(), false, false, $op );
		}
		if ( null === $body ) {
			if ( 'delete' !== $op && ! self::is_gone( $resource, $id ) ) {
				return self::outcome( 'nothing', null, false, false, 'put' );
			}
			$started = microtime( true );
			$res     = Waypost_Bridge_Client::delete( $resource, $id, max( 0.1, (float) $timeout ) );
			return self::classify( $res, 'delete', $resource, $id, microtime( true ) - $started, $timeout );
		}
		$started = microtime( true );
		$res     = Waypost_Bridge_Client::put( $resource, $id, $body, max( 0.1, (float) $timeout ) );
		return self::classify( $res, 'put', $resource, $id, microtime( true ) - $started, $timeout );
	}

	/**
	 * Turns a client response into an outcome. 2xx (and 404 on a delete) is sent; no answer, 5xx, 401, 408, 409, 425
	 * and 429 are failures to retry; any other 4xx is a refusal (the same request would be refused again): it is
	 * kept with its error but not retried until the record changes or an admin retries.
	 *
	 * @param array  $res      Client response {status, body, error}.
	 * @param string $method   put|delete.
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 * @param float  $took     Seconds taken.
	 * @param float  $timeout  Timeout used.
	 */
	private static function classify( $res, $method, $resource, $id, $took, $timeout ) {
		$status = is_array( $res ) && isset( $res['status'] ) ? (int) $res['status'] : 0;
		$label  = strtoupper( $method ) . ' ' . self::label( $resource, $id );
		if ( $status >= 200 && $status < 300 ) {
			return self::outcome( 'sent', null, false, false, $method );
		}
		if ( 'delete' === $method && 404 === $status ) {
			return self::outcome( 'sent', null, false, false, $method ); // Already gone (or never sent).
		}
		$detail = self::detail( $res );
		if ( 0 === $status ) {
			$slow = $took >= min( 1.0, $timeout * 0.9 );
			return self::outcome( 'failed', "{$label}: Waypost did not answer" . ( '' !== $detail ? " ({$detail})" : '' ), true, $slow, $method );
		}
		if ( 401 === $status ) {
			return self::outcome( 'failed', "{$label}: Waypost refused the host token (401). Check the token on Settings > Webhooks & API." . ( '' !== $detail ? " {$detail}" : '' ), false, false, $method );
		}
		if ( $status >= 400 && $status < 500 && ! in_array( $status, array( 408, 409, 425, 429 ), true ) ) {
			return self::outcome( 'refused', "{$label}: Waypost answered {$status}, not retried until the record changes" . ( '' !== $detail ? ": {$detail}" : '' ), false, false, $method );
		}
		return self::outcome( 'failed', "{$label}: Waypost answered {$status}" . ( '' !== $detail ? ": {$detail}" : '' ), false, false, $method );
	}

	/**
	 * A short error text from a client response (the client already summarises Waypost's problem JSON).
	 *
	 * @param mixed $res Response.
	 */
	private static function detail( $res ) {
		if ( is_array( $res ) && ! empty( $res['error'] ) ) {
			return substr( (string) $res['error'], 0, 500 );
		}
		if ( is_array( $res ) && isset( $res['body']['detail'] ) && is_string( $res['body']['detail'] ) ) {
			return substr( $res['body']['detail'], 0, 500 );
		}
		return '';
	}

	/**
	 * Outcome record.
	 */
	private static function outcome( $result, $error = null, $unreachable = false, $slow = false, $method = 'put' ) {
		return array(
			'result'      => $result,
			'error'       => $error,
			'unreachable' => $unreachable,
			'slow'        => $slow,
			'method'      => $method,
		);
	}

	/**
	 * The mapper's body for a record; null when it does not exist, is half-written or trashed.
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 * @param bool   $fresh    Drop WordPress' cached copy first (another request may have changed it).
	 * @return array|null
	 */
	private static function map( $resource, $id, $fresh = false ) {
		if ( $fresh ) {
			if ( method_exists( 'Waypost_Bridge_Mapper', 'reset_cache' ) ) {
				Waypost_Bridge_Mapper::reset_cache();
			}
			if ( 'reviews' === $resource ) {
				clean_comment_cache( $id );
			} else {
				clean_post_cache( $id );
			}
		}
		try {
			$body = Waypost_Bridge_Mapper::record( $resource, (int) $id );
		} catch ( \Throwable $e ) {
			if ( $fresh ) {
				throw $e;
			}
			return null;
		}
		return is_array( $body ) ? $body : null;
	}

	/**
	 * Whether a record was deleted or trashed in WordPress (for a review: deleted, trashed, spam, or its trip
	 * trashed). A review merely held for moderation is not gone: unapproving a review is caught by its hooks.
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 */
	private static function is_gone( $resource, $id ) {
		if ( 'reviews' === $resource ) {
			$comment = get_comment( $id );
			return ! $comment || in_array( (string) $comment->comment_approved, array( 'trash', 'spam', 'post-trashed' ), true );
		}
		$post = get_post( $id );
		return ! $post || 'trash' === $post->post_status;
	}

	/**
	 * "bookings 42" → "booking 42".
	 */
	private static function label( $resource, $id ) {
		$singular = array(
			'trips'     => 'trip',
			'customers' => 'customer',
			'bookings'  => 'booking',
			'payments'  => 'payment',
			'enquiries' => 'enquiry',
			'reviews'   => 'review',
		);
		return ( isset( $singular[ $resource ] ) ? $singular[ $resource ] : $resource ) . ' ' . $id;
	}

	// ------------------------------------------------------------------------------------------------ locks and state

	/**
	 * A per-record MySQL named lock (server-wide, so named after this site's database and table prefix).
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 * @param int    $wait     Seconds to wait.
	 * @return bool|null true: held; false: busy; null: locks unavailable (sent without one).
	 */
	private static function lock( $resource, $id, $wait ) {
		global $wpdb;
		$got = $wpdb->get_var( $wpdb->prepare( 'SELECT GET_LOCK(%s, %d)', self::lock_name( $resource, $id ), (int) $wait ) );
		if ( null === $got ) {
			return null;
		}
		return '1' === (string) $got;
	}

	private static function unlock( $resource, $id, $lock ) {
		global $wpdb;
		if ( true === $lock ) {
			$wpdb->get_var( $wpdb->prepare( 'SELECT RELEASE_LOCK(%s)', self::lock_name( $resource, $id ) ) );
		}
	}

	private static function lock_name( $resource, $id ) {
		global $wpdb;
		// At most 64 characters.
		return 'waypost_' . substr( md5( DB_NAME . '|' . $wpdb->prefix ), 0, 12 ) . '_' . $resource . '_' . (int) $id;
	}

	/**
	 * The revision of the record's queued row, or null. Read *before* the record is read: if the send succeeds, only
	 * that row (that revision) is dropped; a row that a later state added or replaced meanwhile stays queued.
	 */
	private static function queued_revision( $resource, $id ) {
		global $wpdb;
		$table = Waypost_Bridge_Queue::table();
		$rev   = $wpdb->get_var( $wpdb->prepare( "SELECT revision FROM {$table} WHERE resource = %s AND record_id = %d", $resource, (int) $id ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		return null === $rev ? null : (int) $rev;
	}

	private static function forget_if( $resource, $id, $revision ) {
		global $wpdb;
		if ( null === $revision ) {
			return;
		}
		$table = Waypost_Bridge_Queue::table();
		$wpdb->query( $wpdb->prepare( "DELETE FROM {$table} WHERE resource = %s AND record_id = %d AND revision = %d", $resource, (int) $id, (int) $revision ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
	}

	/** Whether a Waypost URL and host token are set. */
	public static function configured() {
		if ( ! class_exists( 'Waypost_Bridge_Connection' ) || ! class_exists( 'Waypost_Bridge_Client' ) || ! class_exists( 'Waypost_Bridge_Mapper' ) || ! class_exists( 'Waypost_Bridge_Queue' ) ) {
			return false;
		}
		return Waypost_Bridge_Connection::is_configured();
	}

	/** Until when (Unix time) requests skip trying Waypost directly after a timeout; 0 if not. */
	public static function unreachable_until() {
		if ( null === self::$unreachable_until ) {
			self::$unreachable_until = (int) get_option( self::UNREACHABLE_OPTION, 0 );
		}
		return self::$unreachable_until;
	}

	/** Waypost timed out: for COOL_DOWN seconds, requests queue their writes instead of waiting for it. */
	public static function mark_unreachable() {
		self::$unreachable_until = time() + self::COOL_DOWN;
		update_option( self::UNREACHABLE_OPTION, self::$unreachable_until, false );
		return self::$unreachable_until;
	}

	/** Waypost answered: requests send directly again. */
	public static function mark_reachable() {
		if ( 0 !== self::unreachable_until() ) {
			delete_option( self::UNREACHABLE_OPTION );
			self::$unreachable_until = 0;
		}
	}

	/**
	 * Logs to the PHP error log.
	 *
	 * @param string $message Message.
	 */
	private static function log( $message ) {
		error_log( 'Waypost bridge: ' . $message ); // phpcs:ignore WordPress.PHP.DevelopmentFunctions.error_log_error_log
	}
}
