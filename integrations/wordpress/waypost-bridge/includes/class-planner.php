<?php
/**
 * Planning: the order in which a request's touched records are sent. A booking brings its customer and payments, a
 * payment its booking; what others refer to goes first, so that Waypost never stores a reference to a record it does
 * not have yet.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * The send order.
 */
class Waypost_Bridge_Planner {

	/** Most records a request plans related records for (a bulk edit of hundreds goes to the queue as it is). */
	public const MAX_RELATED = 40;

	/**
	 * Send order of resources: what others refer to goes first. A booking's payments go just before it, so that the
	 * booking Waypost stores (and its booking.created event) already lists its payment_ids.
	 */
	public const ORDER = array(
		'trips'     => 0,
		'customers' => 1,
		'payments'  => 2,
		'bookings'  => 3,
		'enquiries' => 4,
		'reviews'   => 5,
	);

	/**
	 * The send order for a request's touched records: a booking brings its customer and payments, a payment its
	 * booking; puts go trips, customers, payments, bookings, enquiries, reviews (what is referred to first); deletes
	 * after, in the opposite order.
	 *
	 * @param array $touched Touched records.
	 * @return array[] array{resource, id, gone}
	 */
	public static function plan( array $touched ): array {
		$items = $touched;
		$seq   = $touched ? max( array_column( $touched, 'seq' ) ) : 0;
		if ( count( $items ) <= self::MAX_RELATED ) {
			// A payment changes its booking's paid and due amounts.
			foreach ( $touched as $item ) {
				if ( 'payments' === $item['resource'] && ! $item['gone'] ) {
					$body = Waypost_Bridge_Sender::map( 'payments', $item['id'] );
					if ( is_array( $body ) && ! empty( $body['booking_id'] ) ) {
						self::add_related( $items, $seq, 'bookings', (int) $body['booking_id'] );
					}
				}
			}
			foreach ( $items as $item ) {
				if ( 'bookings' === $item['resource'] && ! $item['gone'] ) {
					$body = Waypost_Bridge_Sender::map( 'bookings', $item['id'] );
					if ( ! is_array( $body ) ) {
						continue;
					}
					if ( isset( $body['customer']['id'] ) && is_numeric( $body['customer']['id'] ) ) {
						self::add_related( $items, $seq, 'customers', (int) $body['customer']['id'] );
					}
					$payment_ids = get_post_meta( $item['id'], 'payments', true );
					foreach ( is_array( $payment_ids ) ? $payment_ids : array() as $payment_id ) {
						if ( is_numeric( $payment_id ) ) {
							self::add_related( $items, $seq, 'payments', (int) $payment_id );
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
	 * @param int    $seq      The plan's last sequence number (an added record sorts after those before it).
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 */
	private static function add_related( array &$items, int &$seq, $resource, $id ): void {
		$key = $resource . ':' . $id;
		if ( $id > 0 && ! isset( $items[ $key ] ) ) {
			$items[ $key ] = array(
				'resource' => $resource,
				'id'       => $id,
				'gone'     => false,
				'seq'      => ++$seq,
			);
		}
	}
}
