<?php
/**
 * A `wte-payments` post as Waypost's payment record, and whether a booking's payments are published at all.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * WP Travel Engine payment → Waypost payment.
 */
class Waypost_Bridge_Payment_Mapper extends Waypost_Bridge_Record_Values {

	/** Payment statuses that count as paid (the product's success statuses; the waiting ones do not). */
	public const PAID_STATUSES = array(
		'completed',
		'captured',
		'partially-paid',
		'check-received',
		'voucher-received',
	);

	public const PAYMENT_STATUSES = array(
		'pending',
		'completed',
		'captured',
		'partially-paid',
		'check-waiting',
		'check-received',
		'voucher-waiting',
		'voucher-received',
		'refunded',
		'failed',
		'canceled',
		'abandoned',
	);

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

	/**
	 * @param WP_Post $post Payment.
	 * @return array|null
	 */
	public static function map( WP_Post $post ): ?array {
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
		$currency = isset( $paid_amount['currency'] ) && '' !== $paid_amount['currency']
			? $paid_amount['currency']
			: ( $payable['currency'] ?? null );
		$due      = strtolower( trim( (string) get_post_meta( $post->ID, 'is_due_payment', true ) ) );
		return array(
			'booking_id'     => $booking_id,
			'status'         => self::payment_status( get_post_meta( $post->ID, 'payment_status', true ) ),
			'amount'         => null === $amount ? '0.00' : $amount,
			'currency'       => self::currency( $currency ),
			'gateway'        => self::text_or_null( get_post_meta( $post->ID, 'payment_gateway', true ), 100 ),
			'transaction_id' => self::text_or_null( get_post_meta( $post->ID, 'transaction_id', true ), 200 ),
			'is_due_payment' => 'yes' === $due,
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
	public static function booking_publishes_payments( int $booking_id ): bool {
		$booking = get_post( $booking_id );
		if ( ! $booking instanceof WP_Post || 'booking' !== $booking->post_type ) {
			return true;
		}
		$cart = get_post_meta( $booking_id, 'cart_info', true );
		return is_array( $cart ) && $cart
			&& version_compare( Waypost_Bridge_Booking_Mapper::cart_version( $cart ), '4.0', '>=' );
	}

	/**
	 * @param mixed $status payment_status (absent on a payment that was never processed: "pending").
	 * @return string One of PAYMENT_STATUSES; unknown ones are "pending".
	 */
	private static function payment_status( $status ): string {
		$status = strtolower( trim( (string) $status ) );
		if ( array_key_exists( $status, self::PAYMENT_SPELLINGS ) ) {
			return self::PAYMENT_SPELLINGS[ $status ];
		}
		return in_array( $status, self::PAYMENT_STATUSES, true ) ? $status : 'pending';
	}
}
