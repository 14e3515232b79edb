<?php
/**
 * People: a `customer` post as Waypost's customer record, and who booked a booking (billing details, the lead
 * traveller, the customer post with that e-mail), which the booking record embeds.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * WP Travel Engine customers and bookers → Waypost customers.
 */
class Waypost_Bridge_Customer_Mapper extends Waypost_Bridge_Record_Values {

	/**
	 * Lower-cased e-mail → customer post id (0: none), filled by prime_customer_ids() or on first use.
	 *
	 * @var array<string,int>
	 */
	private static $customer_ids = array();

	/** Forgets the e-mails looked up so far (Waypost_Bridge_Mapper::reset_cache(), between batches). */
	public static function reset_cache(): void {
		self::$customer_ids = array();
	}

	/**
	 * A customer post: title = e-mail; names, phone and address from the details the product keeps in
	 * `wp_travel_engine_booking_setting` (place_order.booking = billing, wptravelengine_traveller_details = the lead
	 * traveller, which fills what billing lacks, e.g. the phone).
	 *
	 * @param WP_Post $post Customer.
	 * @return array|null
	 */
	public static function map( WP_Post $post ): ?array {
		$setting   = self::arr( get_post_meta( $post->ID, 'wp_travel_engine_booking_setting', true ) );
		$billing   = self::arr( $setting['place_order']['booking'] ?? null );
		$travelers = array_values( self::arr( $setting['wptravelengine_traveller_details'] ?? null ) );
		$email     = self::email( $post->post_title );
		if ( null === $email ) {
			$email = self::email( isset( $billing['email'] ) ? $billing['email'] : null );
		}
		if ( null === $email ) {
			return null;
		}
		$lead = self::lead_traveller( $travelers, $email );
		$pick = self::picker( $billing, $lead );
		return array(
			'email'      => $email,
			'first_name' => self::text_or_null( $pick( 'fname' ), 200 ),
			'last_name'  => self::text_or_null( $pick( 'lname' ), 200 ),
			'phone'      => self::text_or_null( $pick( 'phone' ), 50 ),
			'address'    => array(
				'line1'    => self::text_or_null( $pick( 'address' ), 300 ),
				'city'     => self::text_or_null( $pick( 'city' ), 200 ),
				'state'    => self::text_or_null( $pick( 'state' ), 200 ),
				'postcode' => self::text_or_null( $pick( 'postcode' ) ?? $pick( 'zip' ), 50 ),
				'country'  => self::text_or_null( $pick( 'country' ), 100 ),
			),
			'created_at' => self::post_time( $post ),
		);
	}

	/**
	 * A field from the billing details, else from the lead traveller (both the customer post and the booking use it).
	 *
	 * @param array<string, mixed> $billing The billing details.
	 * @param array<string, mixed> $lead    The lead traveller.
	 */
	private static function picker( array $billing, array $lead ): callable {
		return static function ( $key ) use ( $billing, $lead ) {
			$value = $billing[ $key ] ?? null;
			if ( is_scalar( $value ) && '' !== trim( (string) $value ) ) {
				return $value;
			}
			return isset( $lead[ $key ] ) && is_scalar( $lead[ $key ] ) ? $lead[ $key ] : null;
		};
	}

	/**
	 * The billing e-mail of a booking (lower-cased), or null.
	 *
	 * @param int $booking_id Booking.
	 * @return string|null
	 */
	public static function booking_email( int $booking_id ): ?string {
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
	private static function booking_details( int $booking_id ): array {
		$billing = self::arr( get_post_meta( $booking_id, 'wptravelengine_billing_details', true ) );
		if ( ! $billing ) {
			$billing = self::arr( get_post_meta( $booking_id, 'billing_info', true ) );
		}
		if ( ! $billing ) {
			$setting = self::arr( get_post_meta( $booking_id, 'wp_travel_engine_booking_setting', true ) );
			$billing = self::arr( $setting['place_order']['booking'] ?? null );
		}
		$stored    = get_post_meta( $booking_id, 'wptravelengine_travelers_details', true );
		$travelers = array_values( self::arr( $stored ) );
		$email     = self::email( isset( $billing['email'] ) ? $billing['email'] : null );
		$lead      = self::lead_traveller( $travelers, $email );
		if ( null === $email ) {
			$email = self::email( isset( $lead['email'] ) ? $lead['email'] : null );
		}
		$pick = self::picker( $billing, $lead );
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
	public static function booking_customer( int $booking_id ): ?array {
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
	 * The customer post with this e-mail as its title (lowest id first), 0 when none.
	 *
	 * @param string $email E-mail.
	 * @return int
	 */
	private static function customer_id( string $email ): int {
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
	public static function prime_customer_ids( array $emails ): void {
		global $wpdb;
		$emails = array_values( array_diff( array_unique( $emails ), array_keys( self::$customer_ids ) ) );
		foreach ( array_chunk( $emails, 500 ) as $chunk ) {
			foreach ( $chunk as $email ) {
				self::$customer_ids[ $email ] = 0;
			}
			$in   = implode( ',', array_fill( 0, count( $chunk ), '%s' ) );
			$rows = $wpdb->get_results(
				$wpdb->prepare(
					// phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
					"SELECT ID, post_title FROM {$wpdb->posts} WHERE post_type = 'customer'
					AND post_status NOT IN ('trash','auto-draft','inherit') AND post_title IN ($in) ORDER BY ID",
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
}
