<?php
/**
 * Turns what WP Travel Engine stores (posts, post meta, comments, options) into Waypost's Host API records. It reads
 * WordPress data directly, never the product's classes, so it works whichever product version is installed (and
 * while the product is inactive). What the product stores is described, with real data, in
 * shared/fixtures/wp-travel-engine/README.md; every rule below is checked against those files by
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
class Waypost_Bridge_Mapper {

	/** Post type → Waypost resource. Reviews are comments (see is_review_comment()). */
	public const POST_TYPES = array(
		'trip'         => 'trips',
		'customer'     => 'customers',
		'booking'      => 'bookings',
		'wte-payments' => 'payments',
		'enquiry'      => 'enquiries',
	);

	/** The first version with the new calculation system (cart 4.0): older bookings are "legacy" to Waypost. */
	public const NEW_ENGINE_VERSION = '6.7.0';

	/** engine_version of a legacy booking when the site's first installed version is unknown or not older. */
	public const LEGACY_ENGINE_VERSION = '6.6.0';

	/** Payment statuses that count as paid (the product's success statuses; the waiting ones do not). */
	public const PAID_STATUSES = array( 'completed', 'captured', 'partially-paid', 'check-received', 'voucher-received' );

	public const BOOKING_STATUSES = array( 'pending', 'reserved', 'booked', 'completed', 'canceled', 'refunded', 'failed' );

	public const PAYMENT_STATUSES = array( 'pending', 'completed', 'captured', 'partially-paid', 'check-waiting', 'check-received', 'voucher-waiting', 'voucher-received', 'refunded', 'failed', 'canceled', 'abandoned' );

	/** The product's (and its gateways') other spellings of a payment status. */
	public const PAYMENT_SPELLINGS = array(
		'complete'         => 'completed',
		'success'          => 'completed',
		'settlement'       => 'completed',
		'capture'          => 'captured',
		'cancel'           => 'canceled',
		'cancelled'        => 'canceled',
		'voucher-awaiting' => 'voucher-waiting',
		'deny'             => 'failed',
		'expire'           => 'failed',
		'expired'          => 'failed',
		'revoked'          => 'failed',
	);

	/** Post statuses that never reach Waypost (a trashed or never-saved record is deleted or skipped). */
	public const GONE_STATUSES = array( 'trash', 'auto-draft', 'inherit' );

	/**
	 * Lower-cased e-mail → customer post id (0: none), filled by prime() or on first use.
	 *
	 * @var array<string,int>
	 */
	private static $customer_ids = array();

	/**
	 * The Waypost resource a post belongs to.
	 *
	 * @param WP_Post|int $post Post or id.
	 * @return string|null trips|bookings|customers|payments|enquiries, or null for anything else.
	 */
	public static function resource_of_post( $post ) {
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
	public static function is_review_comment( $c ) {
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
	public static function record( $resource, $id ) {
		$id = (int) $id;
		if ( $id <= 0 ) {
			return null;
		}
		if ( 'reviews' === $resource ) {
			return self::review( $id );
		}
		$post = get_post( $id );
		if ( ! $post instanceof WP_Post || self::resource_of_post( $post ) !== $resource || in_array( $post->post_status, self::GONE_STATUSES, true ) ) {
			return null;
		}
		switch ( $resource ) {
			case 'trips':
				return self::trip( $post );
			case 'customers':
				return self::customer( $post );
			case 'bookings':
				return self::booking( $post );
			case 'payments':
				$payment = self::payment( $post );
				return null !== $payment && self::booking_publishes_payments( $payment['booking_id'] ) ? $payment : null;
			case 'enquiries':
				return self::enquiry( $post );
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
	public static function prime( $resource, array $ids ) {
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
				$email = self::booking_email( $id );
				if ( null !== $email ) {
					$emails[] = $email;
				}
			}
			self::prime_posts( $payments );
			self::prime_customer_ids( $emails );
		}
	}

	/** Forgets what prime() and earlier calls cached here (the backfill calls it between batches). */
	public static function reset_cache() {
		self::$customer_ids = array();
	}

	// ------------------------------------------------------------------ trips

	/**
	 * @param WP_Post $post Trip.
	 * @return array
	 */
	private static function trip( WP_Post $post ) {
		$settings = self::arr( get_post_meta( $post->ID, 'wp_travel_engine_setting', true ) );
		$record   = array(
			'title'        => self::text( $post->post_title, 300 ),
			'slug'         => self::text( '' !== $post->post_name ? $post->post_name : sanitize_title( $post->post_title ), 300 ),
			'url'          => self::trip_url( $post ),
			'status'       => self::trip_status( $post->post_status ),
			'code'         => self::text_or_null( isset( $settings['trip_code'] ) ? $settings['trip_code'] : null, 100 ),
			'destinations' => self::term_names( $post->ID, array( 'destination' ) ),
			'activities'   => self::term_names( $post->ID, array( 'activities', 'activites' ) ),
			'group_size'   => array(
				'min' => self::count_or_null( isset( $settings['trip_minimum_pax'] ) ? $settings['trip_minimum_pax'] : null ),
				'max' => self::count_or_null( self::first_meta( $post->ID, array( 'total_travellers_per_day', 'max_travellers_per_day' ) ) ),
			),
			'min_age'      => null,
			'max_age'      => null,
			'excerpt'      => self::text_or_null( $post->post_excerpt, 5000 ),
			'created_at'   => self::post_time( $post ),
		);
		if ( ! empty( $settings['min_max_age_enable'] ) ) {
			$record['min_age'] = self::age_or_null( get_post_meta( $post->ID, 'wp_travel_engine_trip_min_age', true ) );
			$record['max_age'] = self::age_or_null( get_post_meta( $post->ID, 'wp_travel_engine_trip_max_age', true ) );
		}
		$duration = self::trip_duration( $settings );
		if ( null !== $duration ) {
			$record['duration'] = $duration;
		}
		$price = self::trip_price( $post->ID );
		if ( null !== $price ) {
			$record['price'] = $price;
		}
		return $record;
	}

	/**
	 * The trip's permalink. With the product active that is get_permalink(); without it (the post type is then
	 * unregistered) it is rebuilt the way the product registers it: /{trip base, default "trip"}/{slug}/.
	 *
	 * @param WP_Post $post Trip.
	 * @return string|null
	 */
	private static function trip_url( WP_Post $post ) {
		if ( post_type_exists( $post->post_type ) ) {
			$url = get_permalink( $post );
			return $url ? $url : null;
		}
		if ( 'publish' !== $post->post_status || '' === $post->post_name ) {
			return home_url( '?post_type=trip&p=' . $post->ID );
		}
		$base       = 'trip';
		$permalinks = self::arr( get_option( 'wp_travel_engine_permalinks', array() ) );
		if ( ! empty( $permalinks['wp_travel_engine_trip_base'] ) ) {
			$base = trim( (string) $permalinks['wp_travel_engine_trip_base'], '/' );
		}
		global $wp_rewrite;
		if ( $wp_rewrite instanceof WP_Rewrite && $wp_rewrite->using_permalinks() ) {
			$front = ltrim( (string) $wp_rewrite->front, '/' );
			return home_url( user_trailingslashit( $front . $base . '/' . $post->post_name ) );
		}
		return add_query_arg( 'trip', $post->post_name, home_url( '/' ) );
	}

	/**
	 * @param string $status Post status.
	 * @return string publish|draft|private|pending
	 */
	private static function trip_status( $status ) {
		if ( in_array( $status, array( 'publish', 'draft', 'private', 'pending' ), true ) ) {
			return $status;
		}
		return 'future' === $status ? 'pending' : 'draft';
	}

	/**
	 * `trip_duration` and `trip_duration_unit` of the trip settings.
	 *
	 * @param array $settings wp_travel_engine_setting.
	 * @return array|null {value, unit}
	 */
	private static function trip_duration( array $settings ) {
		if ( ! isset( $settings['trip_duration'] ) || ! is_numeric( $settings['trip_duration'] ) ) {
			return null;
		}
		$units = array(
			'day'     => 'days',
			'days'    => 'days',
			'night'   => 'nights',
			'nights'  => 'nights',
			'hour'    => 'hours',
			'hours'   => 'hours',
			'minute'  => 'minutes',
			'minutes' => 'minutes',
		);
		$unit  = isset( $settings['trip_duration_unit'] ) ? strtolower( trim( (string) $settings['trip_duration_unit'] ) ) : 'days';
		return array(
			'value' => max( 0, (int) $settings['trip_duration'] ),
			'unit'  => isset( $units[ $unit ] ) ? $units[ $unit ] : 'days',
		);
	}

	/**
	 * The trip's "from" price, the way the product shows it on the trip page: the primary package (`primary_package`,
	 * else the first of `packages_ids`), its primary traveller category (the package's `_primary_category_id`, else
	 * its first category); amount = that category's regular price, sale_amount = its sale price when the sale is
	 * enabled for it (else null); currency = the site's currency.
	 *
	 * @param int $trip_id Trip.
	 * @return array|null {amount, sale_amount, currency}
	 */
	private static function trip_price( $trip_id ) {
		$package_id = (int) get_post_meta( $trip_id, 'primary_package', true );
		if ( $package_id <= 0 || ! get_post( $package_id ) ) {
			$packages   = array_values( self::arr( get_post_meta( $trip_id, 'packages_ids', true ) ) );
			$package_id = $packages ? (int) $packages[0] : 0;
		}
		if ( $package_id <= 0 ) {
			return null;
		}
		$categories = self::arr( get_post_meta( $package_id, 'package-categories', true ) );
		$prices     = self::arr( isset( $categories['prices'] ) ? $categories['prices'] : null );
		if ( ! $prices ) {
			return null;
		}
		$category = (string) get_post_meta( $package_id, '_primary_category_id', true );
		if ( '' === $category || ! array_key_exists( $category, $prices ) ) {
			$ids      = array_keys( self::arr( isset( $categories['c_ids'] ) ? $categories['c_ids'] : $prices ) );
			$category = (string) ( $ids ? $ids[0] : array_keys( $prices )[0] );
		}
		$amount = self::money( isset( $prices[ $category ] ) ? $prices[ $category ] : null );
		if ( null === $amount ) {
			return null;
		}
		$sale_enabled = self::arr( isset( $categories['enabled_sale'] ) ? $categories['enabled_sale'] : null );
		$sale_prices  = self::arr( isset( $categories['sale_prices'] ) ? $categories['sale_prices'] : null );
		$sale         = null;
		if ( ! empty( $sale_enabled[ $category ] ) && isset( $sale_prices[ $category ] ) ) {
			$sale = self::money( $sale_prices[ $category ] );
		}
		return array(
			'amount'      => $amount,
			'sale_amount' => $sale,
			'currency'    => self::site_currency(),
		);
	}

	/**
	 * Term names of a post in the first of these taxonomies that has any, read from the term tables (the product's
	 * taxonomies are unregistered while it is inactive). The product registers its activities as "activites".
	 *
	 * @param int      $post_id    Post.
	 * @param string[] $taxonomies Taxonomy names.
	 * @return string[]
	 */
	private static function term_names( $post_id, array $taxonomies ) {
		global $wpdb;
		$in    = implode( ',', array_fill( 0, count( $taxonomies ), '%s' ) );
		$names = $wpdb->get_col(
			$wpdb->prepare(
				"SELECT t.name FROM {$wpdb->term_relationships} tr
				JOIN {$wpdb->term_taxonomy} tt ON tt.term_taxonomy_id = tr.term_taxonomy_id
				JOIN {$wpdb->terms} t ON t.term_id = tt.term_id
				WHERE tr.object_id = %d AND tt.taxonomy IN ($in) ORDER BY tr.term_order, t.name", // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
				array_merge( array( $post_id ), $taxonomies )
			)
		);
		$out = array();
		foreach ( array_slice( array_unique( (array) $names ), 0, 100 ) as $name ) {
			$out[] = self::text( html_entity_decode( (string) $name, ENT_QUOTES, 'UTF-8' ), 200 );
		}
		return $out;
	}

	// -------------------------------------------------------------- customers

	/**
	 * A customer post: title = e-mail; names, phone and address from the details the product keeps in
	 * `wp_travel_engine_booking_setting` (place_order.booking = billing, wptravelengine_traveller_details = the lead
	 * traveller, which fills what billing lacks, e.g. the phone).
	 *
	 * @param WP_Post $post Customer.
	 * @return array|null
	 */
	private static function customer( WP_Post $post ) {
		$setting   = self::arr( get_post_meta( $post->ID, 'wp_travel_engine_booking_setting', true ) );
		$billing   = self::arr( isset( $setting['place_order']['booking'] ) ? $setting['place_order']['booking'] : null );
		$travelers = array_values( self::arr( isset( $setting['wptravelengine_traveller_details'] ) ? $setting['wptravelengine_traveller_details'] : null ) );
		$email     = self::email( $post->post_title );
		if ( null === $email ) {
			$email = self::email( isset( $billing['email'] ) ? $billing['email'] : null );
		}
		if ( null === $email ) {
			return null;
		}
		$lead = self::lead_traveller( $travelers, $email );
		$pick = static function ( $key ) use ( $billing, $lead ) {
			if ( isset( $billing[ $key ] ) && is_scalar( $billing[ $key ] ) && '' !== trim( (string) $billing[ $key ] ) ) {
				return $billing[ $key ];
			}
			return isset( $lead[ $key ] ) && is_scalar( $lead[ $key ] ) ? $lead[ $key ] : null;
		};
		return array(
			'email'      => $email,
			'first_name' => self::text_or_null( $pick( 'fname' ), 200 ),
			'last_name'  => self::text_or_null( $pick( 'lname' ), 200 ),
			'phone'      => self::text_or_null( $pick( 'phone' ), 50 ),
			'address'    => array(
				'line1'    => self::text_or_null( $pick( 'address' ), 300 ),
				'city'     => self::text_or_null( $pick( 'city' ), 200 ),
				'state'    => self::text_or_null( $pick( 'state' ), 200 ),
				'postcode' => self::text_or_null( null !== $pick( 'postcode' ) ? $pick( 'postcode' ) : $pick( 'zip' ), 50 ),
				'country'  => self::text_or_null( $pick( 'country' ), 100 ),
			),
			'created_at' => self::post_time( $post ),
		);
	}

	// --------------------------------------------------------------- bookings

	/**
	 * @param WP_Post $post Booking.
	 * @return array|null
	 */
	private static function booking( WP_Post $post ) {
		$cart = get_post_meta( $post->ID, 'cart_info', true );
		if ( ! is_array( $cart ) || ! $cart ) {
			return null; // Half-written: checkout publishes the post first and writes cart_info later.
		}
		if ( self::superseded( $post->ID ) ) {
			return null;
		}
		$currency = self::currency( isset( $cart['currency'] ) ? $cart['currency'] : null );
		$totals   = self::arr( isset( $cart['totals'] ) ? $cart['totals'] : null );
		$total    = self::money( isset( $totals['total'] ) ? $totals['total'] : ( isset( $cart['total'] ) ? $cart['total'] : null ) );
		$total    = null === $total ? '0.00' : $total;
		$paid     = 0.0;
		foreach ( self::booking_payments( $post->ID ) as $payment ) {
			if ( in_array( $payment['status'], self::PAID_STATUSES, true ) ) {
				$paid += (float) $payment['amount'];
			}
		}
		$cart_version = self::cart_version( $cart );
		return array(
			'status'         => self::booking_status( get_post_meta( $post->ID, 'wp_travel_engine_booking_status', true ) ),
			'booked_at'      => self::post_time( $post ),
			'currency'       => $currency,
			'total_amount'   => $total,
			'paid_amount'    => self::money( $paid ),
			'due_amount'     => self::money( max( 0.0, (float) $total - $paid ) ),
			'customer'       => self::booking_customer( $post->ID ),
			'trips'          => self::booking_trips( $post->ID, $cart ),
			'engine_version' => self::engine_version( $cart_version ),
			'cart_version'   => $cart_version,
			'created_at'     => self::post_time( $post ),
		);
	}

	/**
	 * `cart_info.version`; absent (bookings made before 6.7.0) means "3.0", as the product itself assumes.
	 *
	 * @param array $cart cart_info.
	 * @return string
	 */
	private static function cart_version( array $cart ) {
		$version = isset( $cart['version'] ) ? self::version( $cart['version'] ) : null;
		return null === $version ? '3.0' : $version;
	}

	/**
	 * The engine version a booking was made with. Cart 4.0 exists only since the new calculation system (6.7.0), so
	 * such a booking gets the installed version (`wptravelengine_version`, at least 6.7.0). An older cart was made
	 * before it: the version the site first installed (`wptravelengine_since`) when that is older than 6.7.0, else
	 * 6.6.0. Either way the result is below 6.7.0 exactly for the bookings made before the new system.
	 *
	 * @param string $cart_version Cart version.
	 * @return string
	 */
	public static function engine_version( $cart_version ) {
		if ( version_compare( $cart_version, '4.0', '>=' ) ) {
			$installed = self::version( get_option( 'wptravelengine_version', '' ) );
			if ( null === $installed && defined( 'WP_TRAVEL_ENGINE_VERSION' ) ) {
				$installed = self::version( WP_TRAVEL_ENGINE_VERSION );
			}
			return null !== $installed && version_compare( $installed, self::NEW_ENGINE_VERSION, '>=' ) ? $installed : self::NEW_ENGINE_VERSION;
		}
		$since = self::version( get_option( 'wptravelengine_since', '' ) );
		return null !== $since && version_compare( $since, self::NEW_ENGINE_VERSION, '<' ) ? $since : self::LEGACY_ENGINE_VERSION;
	}

	/**
	 * @param mixed $status wp_travel_engine_booking_status.
	 * @return string One of BOOKING_STATUSES; an unknown or missing status ("N/A") is "pending".
	 */
	private static function booking_status( $status ) {
		$status = strtolower( trim( (string) $status ) );
		if ( 'cancelled' === $status || 'cancel' === $status ) {
			return 'canceled';
		}
		return in_array( $status, self::BOOKING_STATUSES, true ) ? $status : 'pending';
	}

	/**
	 * The booking's payments as payment() sees them: the ids in its `payments` meta whose post names this booking.
	 *
	 * @param int $booking_id Booking.
	 * @return array[] Payment records.
	 */
	private static function booking_payments( $booking_id ) {
		$out = array();
		foreach ( array_unique( array_map( 'intval', self::arr( get_post_meta( $booking_id, 'payments', true ) ) ) ) as $payment_id ) {
			$post    = get_post( $payment_id );
			$ok      = $post instanceof WP_Post && 'wte-payments' === $post->post_type && ! in_array( $post->post_status, self::GONE_STATUSES, true );
			$payment = $ok ? self::payment( $post ) : null;
			if ( null !== $payment && (int) $payment['booking_id'] === (int) $booking_id ) {
				$out[] = $payment;
			}
		}
		return $out;
	}

	/**
	 * The billing e-mail of a booking (lower-cased), or null.
	 *
	 * @param int $booking_id Booking.
	 * @return string|null
	 */
	private static function booking_email( $booking_id ) {
		$details = self::booking_details( $booking_id );
		return null === $details['email'] ? null : strtolower( $details['email'] );
	}

	/**
	 * Who booked: billing details (`wptravelengine_billing_details`, else `billing_info`, else the legacy
	 * place_order.booking), with the lead traveller filling what billing lacks (the phone).
	 *
	 * @param int $booking_id Booking.
	 * @return array{email:string|null,fname:mixed,lname:mixed,phone:mixed}
	 */
	private static function booking_details( $booking_id ) {
		$billing = self::arr( get_post_meta( $booking_id, 'wptravelengine_billing_details', true ) );
		if ( ! $billing ) {
			$billing = self::arr( get_post_meta( $booking_id, 'billing_info', true ) );
		}
		if ( ! $billing ) {
			$setting = self::arr( get_post_meta( $booking_id, 'wp_travel_engine_booking_setting', true ) );
			$billing = self::arr( isset( $setting['place_order']['booking'] ) ? $setting['place_order']['booking'] : null );
		}
		$travelers = array_values( self::arr( get_post_meta( $booking_id, 'wptravelengine_travelers_details', true ) ) );
		$email     = self::email( isset( $billing['email'] ) ? $billing['email'] : null );
		$lead      = self::lead_traveller( $travelers, $email );
		if ( null === $email ) {
			$email = self::email( isset( $lead['email'] ) ? $lead['email'] : null );
		}
		$pick = static function ( $key ) use ( $billing, $lead ) {
			if ( isset( $billing[ $key ] ) && is_scalar( $billing[ $key ] ) && '' !== trim( (string) $billing[ $key ] ) ) {
				return $billing[ $key ];
			}
			return isset( $lead[ $key ] ) && is_scalar( $lead[ $key ] ) ? $lead[ $key ] : null;
		};
		return array(
			'email' => $email,
			'fname' => $pick( 'fname' ),
			'lname' => $pick( 'lname' ),
			'phone' => $pick( 'phone' ),
		);
	}

	/**
	 * The embedded customer: the billing person, linked by id to the customer post with that e-mail when there is
	 * one (Waypost links by e-mail otherwise).
	 *
	 * @param int $booking_id Booking.
	 * @return array|null
	 */
	private static function booking_customer( $booking_id ) {
		$details = self::booking_details( $booking_id );
		if ( null === $details['email'] ) {
			return null;
		}
		$customer = array();
		$id       = self::customer_id( $details['email'] );
		if ( $id > 0 ) {
			$customer['id'] = $id;
		}
		$customer['email']      = $details['email'];
		$customer['first_name'] = self::text_or_null( $details['fname'], 200 );
		$customer['last_name']  = self::text_or_null( $details['lname'], 200 );
		$customer['phone']      = self::text_or_null( $details['phone'], 50 );
		return $customer;
	}

	/**
	 * The booked trips: one per `order_trips` entry (else per `cart_info.items` entry), with line items from the
	 * cart item's `line_items` (pricing categories first, then any other group such as extra services).
	 *
	 * @param int   $booking_id Booking.
	 * @param array $cart       cart_info.
	 * @return array[]
	 */
	private static function booking_trips( $booking_id, array $cart ) {
		$items = array();
		foreach ( array_values( self::arr( isset( $cart['items'] ) ? $cart['items'] : null ) ) as $index => $item ) {
			if ( is_array( $item ) ) {
				$items[ isset( $item['id'] ) && is_scalar( $item['id'] ) ? (string) $item['id'] : '#' . $index ] = $item;
			}
		}
		$order_trips = self::arr( get_post_meta( $booking_id, 'order_trips', true ) );
		$setting     = self::arr( get_post_meta( $booking_id, 'wp_travel_engine_booking_setting', true ) );
		$place_order = self::arr( isset( $setting['place_order'] ) ? $setting['place_order'] : null );
		$trips       = array();
		$position    = 0;
		$source      = $order_trips ? $order_trips : $items;
		foreach ( $source as $key => $entry ) {
			if ( ! is_array( $entry ) ) {
				continue;
			}
			$item = isset( $items[ (string) $key ] ) ? $items[ (string) $key ] : null;
			if ( null === $item && isset( $entry['_cart_item_object'] ) && is_array( $entry['_cart_item_object'] ) ) {
				$item = $entry['_cart_item_object'];
			}
			if ( null === $item ) {
				$by_position = array_values( $items );
				$item        = isset( $by_position[ $position ] ) ? $by_position[ $position ] : array();
			}
			++$position;
			$trip_id = (int) self::first_of( array( $entry, $item ), array( 'ID', 'trip_id' ) );
			if ( $trip_id <= 0 ) {
				continue;
			}
			$title = self::first_of( array( $entry ), array( 'title' ) );
			if ( null === $title ) {
				$trip  = get_post( $trip_id );
				$title = $trip instanceof WP_Post ? $trip->post_title : '';
			}
			$end = self::first_of( array( $entry, $item ), array( 'end_datetime', 'trip_end_date' ) );
			if ( null === $end && 1 === count( $source ) && isset( $place_order['tenddate'] ) ) {
				$end = $place_order['tenddate'];
			}
			$pax = self::arr( isset( $entry['pax'] ) ? $entry['pax'] : ( isset( $item['travelers'] ) ? $item['travelers'] : ( isset( $item['pax'] ) ? $item['pax'] : null ) ) );
			if ( $pax ) {
				$travellers = (int) array_sum( array_map( 'intval', $pax ) );
			} else {
				$travellers = (int) self::first_of( array( $item ), array( 'travelers_count' ) );
			}
			$trips[] = array(
				'trip_id'    => $trip_id,
				'title'      => self::text( (string) $title, 300 ),
				'start_date' => self::date_or_null( self::first_of( array( $entry, $item ), array( 'datetime', 'trip_date' ) ) ),
				'end_date'   => self::date_or_null( $end ),
				'travellers' => max( 0, min( 10000, $travellers ) ),
				'line_items' => self::line_items( isset( $item['line_items'] ) ? $item['line_items'] : null ),
			);
		}
		return array_slice( $trips, 0, 100 );
	}

	/**
	 * @param mixed $groups A cart item's line_items: {group: [{label, quantity, price, total}, …]}.
	 * @return array[]
	 */
	private static function line_items( $groups ) {
		$groups = self::arr( $groups );
		if ( isset( $groups['pricing_category'] ) ) {
			$groups = array( 'pricing_category' => $groups['pricing_category'] ) + $groups;
		}
		$out = array();
		foreach ( $groups as $lines ) {
			foreach ( self::arr( $lines ) as $line ) {
				if ( ! is_array( $line ) || ! isset( $line['label'] ) ) {
					continue;
				}
				$quantity = isset( $line['quantity'] ) && is_numeric( $line['quantity'] ) ? max( 0, (int) $line['quantity'] ) : 0;
				$price    = self::money( isset( $line['price'] ) ? $line['price'] : null );
				$total    = self::money( isset( $line['total'] ) ? $line['total'] : null );
				$out[]    = array(
					'label'    => self::text( (string) $line['label'], 300 ),
					'quantity' => $quantity,
					'price'    => null === $price ? '0.00' : $price,
					'total'    => null === $total ? self::money( $quantity * (float) $price ) : $total,
				);
			}
		}
		return array_slice( $out, 0, 200 );
	}

	// --------------------------------------------------------------- payments

	/**
	 * @param WP_Post $post Payment.
	 * @return array|null
	 */
	private static function payment( WP_Post $post ) {
		$booking_id = (int) get_post_meta( $post->ID, 'booking_id', true );
		$payable    = get_post_meta( $post->ID, 'payable', true );
		if ( $booking_id <= 0 || ! is_array( $payable ) ) {
			return null; // Half-written: the payment post is published before its meta.
		}
		if ( self::superseded( $post->ID ) ) {
			return null;
		}
		$paid_amount = self::arr( get_post_meta( $post->ID, 'payment_amount', true ) );
		$amount      = self::money( isset( $paid_amount['value'] ) ? $paid_amount['value'] : null );
		if ( null === $amount ) {
			$amount = self::money( isset( $payable['amount'] ) ? $payable['amount'] : null );
		}
		$currency = isset( $paid_amount['currency'] ) && '' !== $paid_amount['currency'] ? $paid_amount['currency'] : ( isset( $payable['currency'] ) ? $payable['currency'] : null );
		return array(
			'booking_id'     => $booking_id,
			'status'         => self::payment_status( get_post_meta( $post->ID, 'payment_status', true ) ),
			'amount'         => null === $amount ? '0.00' : $amount,
			'currency'       => self::currency( $currency ),
			'gateway'        => self::text_or_null( get_post_meta( $post->ID, 'payment_gateway', true ), 100 ),
			'transaction_id' => self::text_or_null( get_post_meta( $post->ID, 'transaction_id', true ), 200 ),
			'is_due_payment' => 'yes' === strtolower( trim( (string) get_post_meta( $post->ID, 'is_due_payment', true ) ) ),
			'paid_at'        => self::local_time( get_post_meta( $post->ID, 'transaction_date', true ) ),
			'created_at'     => self::post_time( $post ),
		);
	}

	/**
	 * Whether payments of this booking are sent: not while it is half-written (no cart_info yet), nor when it is a
	 * legacy booking (cart older than 4.0). A payment whose booking post is gone is still sent.
	 *
	 * @param int $booking_id Booking.
	 * @return bool
	 */
	private static function booking_publishes_payments( $booking_id ) {
		$booking = get_post( $booking_id );
		if ( ! $booking instanceof WP_Post || 'booking' !== $booking->post_type ) {
			return true;
		}
		$cart = get_post_meta( $booking_id, 'cart_info', true );
		return is_array( $cart ) && $cart && version_compare( self::cart_version( $cart ), '4.0', '>=' );
	}

	/**
	 * @param mixed $status payment_status (absent on a payment that was never processed: "pending").
	 * @return string One of PAYMENT_STATUSES; unknown ones are "pending".
	 */
	private static function payment_status( $status ) {
		$status = strtolower( trim( (string) $status ) );
		if ( array_key_exists( $status, self::PAYMENT_SPELLINGS ) ) {
			return self::PAYMENT_SPELLINGS[ $status ];
		}
		return in_array( $status, self::PAYMENT_STATUSES, true ) ? $status : 'pending';
	}

	// -------------------------------------------------------------- enquiries

	/**
	 * @param WP_Post $post Enquiry.
	 * @return array|null
	 */
	private static function enquiry( WP_Post $post ) {
		$form    = self::arr( get_post_meta( $post->ID, 'wp_travel_engine_enquiry_formdata', true ) );
		$setting = self::arr( get_post_meta( $post->ID, 'wp_travel_engine_setting', true ) );
		$legacy  = self::arr( isset( $setting['enquiry'] ) ? $setting['enquiry'] : null );
		$email   = self::email( self::first_of( array( $form, $legacy ), array( 'enquiry_email', 'email' ) ) );
		if ( null === $email ) {
			return null;
		}
		$name    = self::first_of( array( $form, $legacy ), array( 'enquiry_name', 'name' ) );
		$trip_id = (int) self::first_of( array( $form, $legacy ), array( 'package_id', 'pname' ) );
		$trip    = null;
		if ( $trip_id > 0 ) {
			$trip_post = get_post( $trip_id );
			$title     = $trip_post instanceof WP_Post ? $trip_post->post_title : wp_strip_all_tags( (string) self::first_of( array( $form ), array( 'package_name' ) ) );
			$trip      = array(
				'id'    => $trip_id,
				'title' => self::text( html_entity_decode( (string) $title, ENT_QUOTES, 'UTF-8' ), 300 ),
			);
		}
		return array(
			'full_name'  => self::text( null === $name ? $post->post_title : (string) $name, 300 ),
			'email'      => $email,
			'phone'      => self::text_or_null( self::first_of( array( $form ), array( 'enquiry_contact', 'enquiry_phone' ) ), 50 ),
			'country'    => self::text_or_null( self::first_of( array( $form ), array( 'enquiry_country' ) ), 100 ),
			'message'    => self::text_or_null( self::first_of( array( $form, $legacy ), array( 'enquiry_message', 'message' ) ), 10000 ),
			'trip'       => $trip,
			'created_at' => self::post_time( $post ),
		);
	}

	// ---------------------------------------------------------------- reviews

	/**
	 * An approved comment on a trip. The star rating is comment meta `stars` (written only by a paid add-on): 1-5,
	 * else null.
	 *
	 * @param int $comment_id Comment.
	 * @return array|null
	 */
	private static function review( $comment_id ) {
		$comment = get_comment( $comment_id );
		if ( ! $comment instanceof WP_Comment || ! self::is_review_comment( $comment ) || '1' !== (string) $comment->comment_approved ) {
			return null;
		}
		$stars  = get_comment_meta( $comment->comment_ID, 'stars', true );
		$rating = is_numeric( $stars ) ? (int) round( (float) $stars ) : 0;
		return array(
			'trip_id'     => (int) $comment->comment_post_ID,
			'author_name' => self::text( (string) $comment->comment_author, 300 ),
			'rating'      => $rating >= 1 && $rating <= 5 ? $rating : null,
			'content'     => self::text_or_null( $comment->comment_content, 20000 ),
			'created_at'  => self::gmt_time( $comment->comment_date_gmt, $comment->comment_date ),
		);
	}

	// ---------------------------------------------------------------- helpers

	/**
	 * Whether "Migrate to New Booking" replaced this legacy booking (or payment) with a copy that still exists.
	 *
	 * @param int $post_id Booking or payment.
	 * @return bool
	 */
	private static function superseded( $post_id ) {
		$copy_id = (int) get_post_meta( $post_id, '_migrated_to', true );
		if ( $copy_id <= 0 || $copy_id === (int) $post_id ) {
			return false;
		}
		$copy = get_post( $copy_id );
		return $copy instanceof WP_Post && ! in_array( $copy->post_status, self::GONE_STATUSES, true );
	}

	/**
	 * The customer post with this e-mail as its title (lowest id first), 0 when none.
	 *
	 * @param string $email E-mail.
	 * @return int
	 */
	private static function customer_id( $email ) {
		$key = strtolower( $email );
		if ( ! array_key_exists( $key, self::$customer_ids ) ) {
			self::prime_customer_ids( array( $key ) );
		}
		return self::$customer_ids[ $key ];
	}

	/**
	 * One query for many e-mails. The product matches customers by `post_title LIKE '%email%'`; an exact match
	 * (case-insensitive, by the column's collation) is what it means and cannot pick someone else.
	 *
	 * @param string[] $emails Lower-cased e-mails.
	 */
	private static function prime_customer_ids( array $emails ) {
		global $wpdb;
		$emails = array_values( array_diff( array_unique( $emails ), array_keys( self::$customer_ids ) ) );
		foreach ( array_chunk( $emails, 500 ) as $chunk ) {
			foreach ( $chunk as $email ) {
				self::$customer_ids[ $email ] = 0;
			}
			$in   = implode( ',', array_fill( 0, count( $chunk ), '%s' ) );
			$rows = $wpdb->get_results(
				$wpdb->prepare(
					"SELECT ID, post_title FROM {$wpdb->posts} WHERE post_type = 'customer' AND post_status NOT IN ('trash','auto-draft','inherit') AND post_title IN ($in) ORDER BY ID", // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
					$chunk
				)
			);
			foreach ( (array) $rows as $row ) {
				$key = strtolower( trim( $row->post_title ) );
				if ( isset( self::$customer_ids[ $key ] ) && 0 === self::$customer_ids[ $key ] ) {
					self::$customer_ids[ $key ] = (int) $row->ID;
				}
			}
		}
	}

	/**
	 * Posts and their meta for many ids in two queries.
	 *
	 * @param int[] $ids Post ids.
	 */
	private static function prime_posts( array $ids ) {
		$ids = array_values( array_unique( array_filter( array_map( 'intval', $ids ) ) ) );
		if ( ! $ids ) {
			return;
		}
		if ( function_exists( '_prime_post_caches' ) ) {
			_prime_post_caches( $ids, false, false );
		}
		update_meta_cache( 'post', $ids );
	}

	/**
	 * The traveller whose e-mail is the billing one, else the first.
	 *
	 * @param array       $travelers wptravelengine_travelers_details / wptravelengine_traveller_details.
	 * @param string|null $email     Billing e-mail.
	 * @return array
	 */
	private static function lead_traveller( array $travelers, $email ) {
		foreach ( $travelers as $traveler ) {
			if ( is_array( $traveler ) && null !== $email && isset( $traveler['email'] ) && strtolower( trim( (string) $traveler['email'] ) ) === strtolower( $email ) ) {
				return $traveler;
			}
		}
		return isset( $travelers[0] ) && is_array( $travelers[0] ) ? $travelers[0] : array();
	}

	/** @return string The site currency (`wp_travel_engine_settings.currency_code`). */
	private static function site_currency() {
		$settings = self::arr( get_option( 'wp_travel_engine_settings', array() ) );
		$code     = isset( $settings['currency_code'] ) ? strtoupper( trim( (string) $settings['currency_code'] ) ) : '';
		return preg_match( '/^[A-Z]{3}$/', $code ) ? $code : 'USD';
	}

	/**
	 * @param mixed $code A currency code.
	 * @return string It, upper-cased, when it is one; else the site currency.
	 */
	private static function currency( $code ) {
		$code = is_scalar( $code ) ? strtoupper( trim( (string) $code ) ) : '';
		return preg_match( '/^[A-Z]{3}$/', $code ) ? $code : self::site_currency();
	}

	/**
	 * A decimal string with two decimals ("1250.00"), or null for a non-number. Amounts are plain numbers in the
	 * site currency (strings "160.00" in cart 4.0, floats before).
	 *
	 * @param mixed $value Amount.
	 * @return string|null
	 */
	public static function money( $value ) {
		if ( is_string( $value ) ) {
			$value = trim( $value );
		}
		if ( ! is_numeric( $value ) ) {
			return null;
		}
		$out = number_format( round( (float) $value, 2 ), 2, '.', '' );
		return '-0.00' === $out ? '0.00' : $out;
	}

	/**
	 * @param mixed $value Version string.
	 * @return string|null "6.8.0" from "6.8.0" or "6.8.0-beta"; null when there is none.
	 */
	private static function version( $value ) {
		if ( ! is_scalar( $value ) || ! preg_match( '/^\s*v?(\d+(?:\.\d+){0,2})/', (string) $value, $m ) ) {
			return null;
		}
		return $m[1];
	}

	/**
	 * @param mixed $value A stored e-mail.
	 * @return string|null It, trimmed, when valid.
	 */
	private static function email( $value ) {
		if ( ! is_scalar( $value ) ) {
			return null;
		}
		$email = trim( (string) $value );
		return '' !== $email && strlen( $email ) <= 254 && is_email( $email ) ? $email : null;
	}

	/**
	 * @param mixed $value Text.
	 * @param int   $max   Characters.
	 * @return string
	 */
	private static function text( $value, $max ) {
		$value = is_scalar( $value ) ? trim( (string) $value ) : '';
		return function_exists( 'mb_substr' ) ? mb_substr( $value, 0, $max, 'UTF-8' ) : substr( $value, 0, $max );
	}

	/**
	 * @param mixed $value Text.
	 * @param int   $max   Characters.
	 * @return string|null null for empty.
	 */
	private static function text_or_null( $value, $max ) {
		$text = self::text( $value, $max );
		return '' === $text ? null : $text;
	}

	/**
	 * @param mixed $value A count.
	 * @return int|null
	 */
	private static function count_or_null( $value ) {
		return is_numeric( $value ) && (int) $value >= 0 ? (int) $value : null;
	}

	/**
	 * @param mixed $value An age.
	 * @return int|null
	 */
	private static function age_or_null( $value ) {
		return is_numeric( $value ) && (int) $value >= 0 && (int) $value <= 150 ? (int) $value : null;
	}

	/**
	 * @param mixed $value "2026-12-23", "2026-12-23T00:00", "2027-01-03 00:00:00".
	 * @return string|null Y-m-d.
	 */
	private static function date_or_null( $value ) {
		if ( ! is_scalar( $value ) || ! preg_match( '/^(\d{4})-(\d{2})-(\d{2})/', trim( (string) $value ), $m ) ) {
			return null;
		}
		return checkdate( (int) $m[2], (int) $m[3], (int) $m[1] ) ? $m[0] : null;
	}

	/**
	 * @param WP_Post $post Post.
	 * @return string ISO 8601 UTC of its publication.
	 */
	private static function post_time( WP_Post $post ) {
		return self::gmt_time( $post->post_date_gmt, $post->post_date );
	}

	/**
	 * @param string $gmt   MySQL datetime in UTC (zero for drafts).
	 * @param string $local The same in the site's time zone.
	 * @return string ISO 8601 UTC.
	 */
	private static function gmt_time( $gmt, $local ) {
		if ( is_string( $gmt ) && '' !== $gmt && 0 !== strpos( $gmt, '0000-00-00' ) ) {
			$time = strtotime( $gmt . ' UTC' );
			if ( false !== $time ) {
				return gmdate( 'Y-m-d\TH:i:s\Z', $time );
			}
		}
		$iso = self::local_time( $local );
		return null === $iso ? gmdate( 'Y-m-d\TH:i:s\Z' ) : $iso;
	}

	/**
	 * @param mixed $value A time in the site's time zone ("2026-11-23 17:17:59"), or a Unix time.
	 * @return string|null ISO 8601 UTC.
	 */
	private static function local_time( $value ) {
		if ( is_int( $value ) || ( is_string( $value ) && ctype_digit( $value ) && strlen( $value ) >= 9 ) ) {
			return gmdate( 'Y-m-d\TH:i:s\Z', (int) $value );
		}
		if ( ! is_string( $value ) || '' === trim( $value ) || 0 === strpos( $value, '0000-00-00' ) ) {
			return null;
		}
		try {
			$time = new DateTime( trim( $value ), self::site_timezone() );
		} catch ( Exception $e ) {
			return null;
		}
		return gmdate( 'Y-m-d\TH:i:s\Z', $time->getTimestamp() );
	}

	/** @return DateTimeZone The site's time zone (wp_timezone() exists only since WordPress 5.3). */
	private static function site_timezone() {
		if ( function_exists( 'wp_timezone' ) ) {
			return wp_timezone();
		}
		$name = (string) get_option( 'timezone_string' );
		if ( '' !== $name ) {
			try {
				return new DateTimeZone( $name );
			} catch ( Exception $e ) {
				unset( $e ); // Fall through to the offset.
			}
		}
		$offset  = (float) get_option( 'gmt_offset' );
		$seconds = (int) round( $offset * 3600 );
		return new DateTimeZone( sprintf( '%s%02d:%02d', $seconds < 0 ? '-' : '+', abs( $seconds ) / 3600, abs( $seconds ) % 3600 / 60 ) );
	}

	/**
	 * @param mixed $value Anything.
	 * @return array It when it is an array, else [].
	 */
	private static function arr( $value ) {
		return is_array( $value ) ? $value : array();
	}

	/**
	 * The first non-empty scalar among these keys of these arrays.
	 *
	 * @param array[]  $sources Arrays, searched in order.
	 * @param string[] $keys    Keys, searched in order within each array.
	 * @return mixed|null
	 */
	private static function first_of( array $sources, array $keys ) {
		foreach ( $sources as $source ) {
			foreach ( $keys as $key ) {
				if ( is_array( $source ) && isset( $source[ $key ] ) && is_scalar( $source[ $key ] ) && '' !== trim( (string) $source[ $key ] ) ) {
					return $source[ $key ];
				}
			}
		}
		return null;
	}

	/**
	 * The first of these meta keys that has a value.
	 *
	 * @param int      $post_id Post.
	 * @param string[] $keys    Meta keys.
	 * @return mixed|null
	 */
	private static function first_meta( $post_id, array $keys ) {
		foreach ( $keys as $key ) {
			$value = get_post_meta( $post_id, $key, true );
			if ( is_scalar( $value ) && '' !== trim( (string) $value ) ) {
				return $value;
			}
		}
		return null;
	}
}
