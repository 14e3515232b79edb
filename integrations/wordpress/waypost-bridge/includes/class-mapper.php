<?php
/**
 * Turns what WP Travel Engine stores (posts, post meta, comments, options) into Waypost's Host API records: this
 * class says which resource a post or comment is and dispatches to the mapper of each resource
 * (class-trip-mapper.php, class-customer-mapper.php, class-booking-mapper.php, class-payment-mapper.php,
 * class-enquiry-mapper.php, class-review-mapper.php; their shared value rules are class-record-values.php). It reads
 * WordPress data directly, never the product's classes, so it works whichever product version is installed (and
 * while the product is inactive). What the product stores is described, with real data, in
 * shared/fixtures/wp-travel-engine/README.md; every rule is checked against those files by
 * test/bridge/mapping.test.ts.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * WP Travel Engine → Waypost records.
 */
class Waypost_Bridge_Mapper extends Waypost_Bridge_Record_Values {

	/** Post type → Waypost resource. Reviews are comments (see is_review_comment()). */
	public const POST_TYPES = array(
		'trip'         => 'trips',
		'customer'     => 'customers',
		'booking'      => 'bookings',
		'wte-payments' => 'payments',
		'enquiry'      => 'enquiries',
	);

	/** Post statuses that never reach Waypost (a trashed or never-saved record is deleted or skipped). */
	public const GONE_STATUSES = array( 'trash', 'auto-draft', 'inherit' );

	/**
	 * The Waypost resource a post belongs to.
	 *
	 * @param WP_Post|int $post Post or id.
	 * @return string|null trips|bookings|customers|payments|enquiries, or null for anything else.
	 */
	public static function resource_of_post( $post ): ?string {
		$post = get_post( $post );
		if ( ! $post instanceof WP_Post ) {
			return null;
		}
		return array_key_exists( $post->post_type, self::POST_TYPES ) ? self::POST_TYPES[ $post->post_type ] : null;
	}

	/**
	 * Whether a comment is a trip review (a comment, not a ping or note, on a `trip` post), whatever its approval.
	 *
	 * @param WP_Comment|int $c Comment or id.
	 * @return bool
	 */
	public static function is_review_comment( $c ): bool {
		$comment = get_comment( $c );
		if ( ! $comment instanceof WP_Comment ) {
			return false;
		}
		if ( ! in_array( (string) $comment->comment_type, array( '', 'comment', 'review' ), true ) ) {
			return false;
		}
		$trip = get_post( (int) $comment->comment_post_ID );
		return $trip instanceof WP_Post && 'trip' === $trip->post_type;
	}

	/**
	 * The Host API PUT body for one record, or null when there is nothing to publish. Null means:
	 * - the post/comment does not exist, is of another kind, or is trashed, an auto-draft or a revision;
	 * - it is half-written (the product writes its meta after publishing the post): a booking without `cart_info`,
	 *   a payment without `booking_id` or `payable`, a customer or enquiry without a valid e-mail;
	 * - it was superseded: a legacy booking (or its payment) that "Migrate to New Booking" copied (`_migrated_to`
	 *   names the copy, which replaces it; the product's own lists hide it too);
	 * - it is a payment of a legacy booking (cart older than 4.0): the booking itself is sent but Waypost hides it,
	 *   and its payments would otherwise show in /payments and fire payment events for a booking no receiver can
	 *   read (and again for the migrated copy's payment); or a payment whose booking is still half-written;
	 * - a review that is not approved (held for moderation, spam, trash).
	 * Callers treat null as "delete it from Waypost, or skip it if it was never sent".
	 *
	 * @param string $resource trips|customers|bookings|payments|enquiries|reviews.
	 * @param int    $id       Post id (comment id for reviews).
	 * @return array|null
	 */
	public static function record( string $resource, int $id ): ?array {
		$id = (int) $id;
		if ( $id <= 0 ) {
			return null;
		}
		if ( 'reviews' === $resource ) {
			return Waypost_Bridge_Review_Mapper::map( $id );
		}
		$post = get_post( $id );
		if ( ! $post instanceof WP_Post || self::resource_of_post( $post ) !== $resource ) {
			return null;
		}
		if ( in_array( $post->post_status, self::GONE_STATUSES, true ) ) {
			return null;
		}
		switch ( $resource ) {
			case 'trips':
				return Waypost_Bridge_Trip_Mapper::map( $post );
			case 'customers':
				return Waypost_Bridge_Customer_Mapper::map( $post );
			case 'bookings':
				return Waypost_Bridge_Booking_Mapper::map( $post );
			case 'payments':
				$payment   = Waypost_Bridge_Payment_Mapper::map( $post );
				$published = null !== $payment
					&& Waypost_Bridge_Payment_Mapper::booking_publishes_payments( $payment['booking_id'] );
				return $published ? $payment : null;
			case 'enquiries':
				return Waypost_Bridge_Enquiry_Mapper::map( $post );
		}
		return null;
	}

	/**
	 * Loads what record() will read for many ids at once (posts and meta in a few queries; for bookings their
	 * payments and customers too). Only an optimisation: record() gives the same answer without it.
	 *
	 * @param string $resource Resource.
	 * @param int[]  $ids      Ids.
	 */
	public static function prime( string $resource, array $ids ): void {
		$ids = array_values( array_filter( array_map( 'intval', $ids ) ) );
		if ( ! $ids ) {
			return;
		}
		if ( 'reviews' === $resource ) {
			if ( function_exists( '_prime_comment_caches' ) ) {
				_prime_comment_caches( $ids, true );
			}
			return;
		}
		self::prime_posts( $ids );
		if ( 'payments' === $resource ) {
			$bookings = array();
			foreach ( $ids as $id ) {
				$bookings[] = (int) get_post_meta( $id, 'booking_id', true );
			}
			self::prime_posts( $bookings );
		}
		if ( 'trips' === $resource ) {
			$packages = array();
			foreach ( $ids as $id ) {
				$packages[] = (int) get_post_meta( $id, 'primary_package', true );
				foreach ( self::arr( get_post_meta( $id, 'packages_ids', true ) ) as $package_id ) {
					$packages[] = (int) $package_id;
				}
			}
			self::prime_posts( $packages );
		}
		if ( 'bookings' === $resource ) {
			$payments = array();
			$emails   = array();
			foreach ( $ids as $id ) {
				foreach ( self::arr( get_post_meta( $id, 'payments', true ) ) as $payment_id ) {
					$payments[] = (int) $payment_id;
				}
				$email = Waypost_Bridge_Customer_Mapper::booking_email( $id );
				if ( null !== $email ) {
					$emails[] = $email;
				}
			}
			self::prime_posts( $payments );
			Waypost_Bridge_Customer_Mapper::prime_customer_ids( $emails );
		}
	}

	/** Forgets what prime() and earlier calls cached here (the backfill calls it between batches). */
	public static function reset_cache(): void {
		Waypost_Bridge_Customer_Mapper::reset_cache();
	}
}
