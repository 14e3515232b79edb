<?php
/**
 * A `booking` post as Waypost's booking record: status, totals (paid from its payments), who booked, the booked
 * trips with their line items, and the engine and cart versions it was made with.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * WP Travel Engine booking → Waypost booking.
 */
class Waypost_Bridge_Booking_Mapper extends Waypost_Bridge_Record_Values {

	/** The first version with the new calculation system (cart 4.0): older bookings are "legacy" to Waypost. */
	public const NEW_ENGINE_VERSION = '6.7.0';

	/** engine_version of a legacy booking when the site's first installed version is unknown or not older. */
	public const LEGACY_ENGINE_VERSION = '6.6.0';

	public const BOOKING_STATUSES = array(
		'pending',
		'reserved',
		'booked',
		'completed',
		'canceled',
		'refunded',
		'failed',
	);

	/**
	 * @param WP_Post $post Booking.
	 * @return array|null
	 */
	public static function map( WP_Post $post ): ?array {
		$cart = get_post_meta( $post->ID, 'cart_info', true );
		if ( ! is_array( $cart ) || ! $cart ) {
			return null; // Half-written: checkout publishes the post first and writes cart_info later.
		}
		if ( self::superseded( $post->ID ) ) {
			return null;
		}
		$currency = self::currency( isset( $cart['currency'] ) ? $cart['currency'] : null );
		$totals   = self::arr( isset( $cart['totals'] ) ? $cart['totals'] : null );
		$total    = self::money( $totals['total'] ?? ( $cart['total'] ?? null ) );
		$total    = null === $total ? '0.00' : $total;
		$paid     = 0.0;
		foreach ( self::booking_payments( $post->ID ) as $payment ) {
			if ( in_array( $payment['status'], Waypost_Bridge_Payment_Mapper::PAID_STATUSES, true ) ) {
				$paid += (float) $payment['amount'];
			}
		}
		$cart_version = self::cart_version( $cart );
		$status       = get_post_meta( $post->ID, 'wp_travel_engine_booking_status', true );
		return array(
			'status'         => self::booking_status( $status ),
			'booked_at'      => self::post_time( $post ),
			'currency'       => $currency,
			'total_amount'   => $total,
			'paid_amount'    => self::money( $paid ),
			'due_amount'     => self::money( max( 0.0, (float) $total - $paid ) ),
			'customer'       => Waypost_Bridge_Customer_Mapper::booking_customer( $post->ID ),
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
	public static function cart_version( array $cart ): string {
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
	public static function engine_version( string $cart_version ): string {
		if ( version_compare( $cart_version, '4.0', '>=' ) ) {
			$installed = self::version( get_option( 'wptravelengine_version', '' ) );
			if ( null === $installed && defined( 'WP_TRAVEL_ENGINE_VERSION' ) ) {
				$installed = self::version( WP_TRAVEL_ENGINE_VERSION );
			}
			$newer = null !== $installed && version_compare( $installed, self::NEW_ENGINE_VERSION, '>=' );
			return $newer ? $installed : self::NEW_ENGINE_VERSION;
		}
		$since = self::version( get_option( 'wptravelengine_since', '' ) );
		$older = null !== $since && version_compare( $since, self::NEW_ENGINE_VERSION, '<' );
		return $older ? $since : self::LEGACY_ENGINE_VERSION;
	}

	/**
	 * @param mixed $status wp_travel_engine_booking_status.
	 * @return string One of BOOKING_STATUSES; an unknown or missing status ("N/A") is "pending".
	 */
	private static function booking_status( $status ): string {
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
	private static function booking_payments( int $booking_id ): array {
		$out = array();
		$ids = array_unique( array_map( 'intval', self::arr( get_post_meta( $booking_id, 'payments', true ) ) ) );
		foreach ( $ids as $payment_id ) {
			$post    = get_post( $payment_id );
			$ok      = $post instanceof WP_Post && 'wte-payments' === $post->post_type
				&& ! in_array( $post->post_status, Waypost_Bridge_Mapper::GONE_STATUSES, true );
			$payment = $ok ? Waypost_Bridge_Payment_Mapper::map( $post ) : null;
			if ( null !== $payment && (int) $payment['booking_id'] === (int) $booking_id ) {
				$out[] = $payment;
			}
		}
		return $out;
	}

	/**
	 * The booked trips: one per `order_trips` entry (else per `cart_info.items` entry), with line items from the
	 * cart item's `line_items` (pricing categories first, then any other group such as extra services).
	 *
	 * @param int   $booking_id Booking.
	 * @param array $cart       cart_info.
	 * @return array[]
	 */
	private static function booking_trips( int $booking_id, array $cart ): array {
		$items = array();
		foreach ( array_values( self::arr( isset( $cart['items'] ) ? $cart['items'] : null ) ) as $index => $item ) {
			if ( is_array( $item ) ) {
				$key           = isset( $item['id'] ) && is_scalar( $item['id'] ) ? (string) $item['id'] : '#' . $index;
				$items[ $key ] = $item;
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
			$pax = self::arr( $entry['pax'] ?? ( $item['travelers'] ?? ( $item['pax'] ?? null ) ) );
			if ( $pax ) {
				$travellers = (int) array_sum( array_map( 'intval', $pax ) );
			} else {
				$travellers = (int) self::first_of( array( $item ), array( 'travelers_count' ) );
			}
			$start   = self::first_of( array( $entry, $item ), array( 'datetime', 'trip_date' ) );
			$trips[] = array(
				'trip_id'    => $trip_id,
				'title'      => self::text( (string) $title, 300 ),
				'start_date' => self::date_or_null( $start ),
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
	private static function line_items( $groups ): array {
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
				$counted  = isset( $line['quantity'] ) && is_numeric( $line['quantity'] );
				$quantity = $counted ? max( 0, (int) $line['quantity'] ) : 0;

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
}
