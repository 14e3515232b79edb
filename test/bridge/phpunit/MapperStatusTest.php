<?php
/**
 * How the mapper reads WP Travel Engine's booking, payment and trip statuses, cart and engine versions.
 *
 * @package WaypostBridge
 */

use PHPUnit\Framework\TestCase;

/**
 * The mapper's status and version rules.
 */
final class MapperStatusTest extends TestCase {

	protected function setUp(): void {
		$GLOBALS['waypost_test_options'] = array();
	}

	/**
	 * @dataProvider bookingStatuses
	 */
	public function test_booking_status( $stored, string $expected ): void {
		$this->assertSame( $expected, waypost_call( 'Waypost_Bridge_Booking_Mapper', 'booking_status', $stored ) );
	}

	public function bookingStatuses(): array {
		return array(
			'as stored'               => array( 'booked', 'booked' ),
			'upper case, spaces'      => array( '  Completed ', 'completed' ),
			'British spelling'        => array( 'cancelled', 'canceled' ),
			'short form'              => array( 'cancel', 'canceled' ),
			'the product\'s N/A'      => array( 'N/A', 'pending' ),
			'missing'                 => array( null, 'pending' ),
			'unknown'                 => array( 'on-hold', 'pending' ),
			'every known one is kept' => array( 'refunded', 'refunded' ),
		);
	}

	/**
	 * @dataProvider paymentStatuses
	 */
	public function test_payment_status( $stored, string $expected ): void {
		$this->assertSame( $expected, waypost_call( 'Waypost_Bridge_Payment_Mapper', 'payment_status', $stored ) );
	}

	public function paymentStatuses(): array {
		return array(
			'as stored'            => array( 'check-received', 'check-received' ),
			'gateway: success'     => array( 'success', 'completed' ),
			'gateway: settlement'  => array( 'Settlement', 'completed' ),
			'gateway: capture'     => array( 'capture', 'captured' ),
			'gateway: expire'      => array( 'expire', 'failed' ),
			'voucher spelling'     => array( 'voucher-awaiting', 'voucher-waiting' ),
			'British cancellation' => array( 'cancelled', 'canceled' ),
			'never processed'      => array( '', 'pending' ),
			'unknown'              => array( 'processing', 'pending' ),
		);
	}

	public function test_every_spelling_maps_to_a_known_payment_status(): void {
		foreach ( Waypost_Bridge_Payment_Mapper::PAYMENT_SPELLINGS as $spelling => $status ) {
			$this->assertContains( $status, Waypost_Bridge_Payment_Mapper::PAYMENT_STATUSES, $spelling );
		}
		foreach ( Waypost_Bridge_Payment_Mapper::PAID_STATUSES as $status ) {
			$this->assertContains( $status, Waypost_Bridge_Payment_Mapper::PAYMENT_STATUSES );
		}
	}

	public function test_trip_status(): void {
		$this->assertSame( 'publish', waypost_call( 'Waypost_Bridge_Trip_Mapper', 'trip_status', 'publish' ) );
		$this->assertSame( 'pending', waypost_call( 'Waypost_Bridge_Trip_Mapper', 'trip_status', 'future' ) );
		$this->assertSame( 'draft', waypost_call( 'Waypost_Bridge_Trip_Mapper', 'trip_status', 'auto-draft' ) );
	}

	public function test_cart_version_absent_means_3_0(): void {
		$this->assertSame( '3.0', waypost_call( 'Waypost_Bridge_Booking_Mapper', 'cart_version', array() ) );
		$this->assertSame( '4.0', waypost_call( 'Waypost_Bridge_Booking_Mapper', 'cart_version', array( 'version' => '4.0' ) ) );
		$this->assertSame( '4.0', waypost_call( 'Waypost_Bridge_Booking_Mapper', 'cart_version', array( 'version' => 'v4.0-beta' ) ) );
		$this->assertSame( '3.0', waypost_call( 'Waypost_Bridge_Booking_Mapper', 'cart_version', array( 'version' => array() ) ) );
	}

	public function test_engine_version_of_a_cart_4_booking_is_the_installed_one_at_least_6_7_0(): void {
		$GLOBALS['waypost_test_options']['wptravelengine_version'] = '6.8.0';
		$this->assertSame( '6.8.0', Waypost_Bridge_Booking_Mapper::engine_version( '4.0' ) );
		$GLOBALS['waypost_test_options']['wptravelengine_version'] = '6.6.8'; // Impossible for cart 4.0: the floor.
		$this->assertSame( '6.7.0', Waypost_Bridge_Booking_Mapper::engine_version( '4.0' ) );
	}

	public function test_engine_version_of_a_legacy_booking_is_below_6_7_0(): void {
		$GLOBALS['waypost_test_options']['wptravelengine_version'] = '6.8.0';
		$this->assertSame( '6.6.0', Waypost_Bridge_Booking_Mapper::engine_version( '3.0' ) );
		$GLOBALS['waypost_test_options']['wptravelengine_since'] = '6.1.1';
		$this->assertSame( '6.1.1', Waypost_Bridge_Booking_Mapper::engine_version( '3.0' ) );
		$GLOBALS['waypost_test_options']['wptravelengine_since'] = '6.8.0'; // Installed after: not the legacy one.
		$this->assertSame( '6.6.0', Waypost_Bridge_Booking_Mapper::engine_version( '3.0' ) );
	}
}
