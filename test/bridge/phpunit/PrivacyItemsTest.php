<?php
/**
 * Waypost's export document as WordPress's export items, and the eraser's rules that need no WordPress: which
 * answers are refused for good, and the messages naming the webhooks.
 *
 * @package WaypostBridge
 */

use PHPUnit\Framework\TestCase;

/**
 * Export items and eraser messages.
 */
final class PrivacyItemsTest extends TestCase {

	/** A booking as Waypost's REST API shows it (the fields that matter here). */
	private const BOOKING = array(
		'id'           => 1001,
		'status'       => 'booked',
		'total_amount' => '1250.00',
		'paid'         => true,
		'note'         => null,
		'tags'         => array( 'family', 'spring' ),
		'customer'     => array(
			'id'         => 501,
			'email'      => 'ana@example.com',
			'first_name' => 'Ana',
		),
		'trips'        => array(
			array(
				'trip_id'    => 7,
				'line_items' => array(
					array(
						'label'    => 'Adult',
						'quantity' => 2,
					),
				),
			),
		),
	);

	/**
	 * @param array $item An item.
	 * @return array<string,string> name => value.
	 */
	private function fields( array $item ): array {
		return array_column( $item['data'], 'value', 'name' );
	}

	public function test_a_record_is_one_item_with_readable_names_nested_fields_spelled_out(): void {
		$item = Waypost_Bridge_Privacy_Items::record_item( 'bookings', self::BOOKING );
		$this->assertSame( 'waypost', $item['group_id'] );
		$this->assertSame( 'Waypost', $item['group_label'] );
		$this->assertSame( 'waypost-bookings-1001', $item['item_id'] );
		$this->assertSame(
			array(
				'Record'                                => 'Booking 1001',
				'Id'                                    => '1001',
				'Status'                                => 'booked',
				'Total amount'                          => '1250.00',
				'Paid'                                  => 'yes',
				'Tags'                                  => 'family, spring',
				'Customer › Id'                         => '501',
				'Customer › Email'                      => 'ana@example.com',
				'Customer › First name'                 => 'Ana',
				'Trips › 1 › Trip id'                   => '7',
				'Trips › 1 › Line items › 1 › Label'    => 'Adult',
				'Trips › 1 › Line items › 1 › Quantity' => '2',
			),
			$this->fields( $item ),
			'empty values (note) are left out'
		);
	}

	public function test_a_delivery_names_the_event_the_webhook_its_url_status_and_time(): void {
		$items = Waypost_Bridge_Privacy_Items::items(
			array(
				'records'    => array(
					'customers' => array( array( 'id' => 501, 'email' => 'ana@example.com' ) ),
					'bookings'  => array( self::BOOKING ),
					'payments'  => array(),
				),
				'deliveries' => array(
					array(
						'id'           => 'dlv_1',
						'event_id'     => 'evt_1',
						'event_type'   => 'booking.created',
						'webhook'      => array(
							'id'   => 'wh_1',
							'name' => 'CRM',
							'url'  => 'https://crm.example.com/hooks',
						),
						'status'       => 'succeeded',
						'attempts'     => 1,
						'created_at'   => '2027-03-01T09:00:00.000Z',
						'completed_at' => null,
					),
				),
			)
		);
		$this->assertSame(
			array( 'waypost-customers-501', 'waypost-bookings-1001', 'waypost-delivery-dlv_1' ),
			array_column( $items, 'item_id' )
		);
		$this->assertSame(
			array(
				'Record'      => 'Delivery to a webhook',
				'Event'       => 'booking.created',
				'Webhook'     => 'CRM',
				'Webhook URL' => 'https://crm.example.com/hooks',
				'Status'      => 'succeeded',
				'Attempts'    => '1',
				'Sent at'     => '2027-03-01T09:00:00.000Z',
				'Event id'    => 'evt_1',
			),
			$this->fields( $items[2] )
		);
	}

	public function test_an_empty_or_odd_document_gives_no_items(): void {
		$this->assertSame( array(), Waypost_Bridge_Privacy_Items::items( array() ) );
		$odd = array(
			'records'    => 'x',
			'deliveries' => 3,
		);
		$this->assertSame( array(), Waypost_Bridge_Privacy_Items::items( $odd ) );
	}

	public function test_unreachable_is_one_item_that_says_the_part_is_missing(): void {
		$item = Waypost_Bridge_Privacy_Items::unreachable( 'cURL error 7: Failed to connect' );
		$this->assertSame( 'waypost-unreachable', $item['item_id'] );
		$text = $item['data'][0]['value'];
		$this->assertMatchesRegularExpression( '/could not be reached.*cURL error 7.*Export again/', $text );
	}

	/**
	 * @dataProvider statuses
	 */
	public function test_which_answers_are_refused_for_good( int $status, bool $refused ): void {
		$this->assertSame( $refused, Waypost_Bridge_Privacy::refused( $status ) );
	}

	public function statuses(): array {
		return array(
			'400 bad request' => array( 400, true ),
			'422'             => array( 422, true ),
			'401 token'       => array( 401, false ),
			'429 slow down'   => array( 429, false ),
			'408'             => array( 408, false ),
			'500'             => array( 500, false ),
			'no answer'       => array( 0, false ),
		);
	}

	public function test_one_message_per_webhook_that_received_the_data(): void {
		$messages = Waypost_Bridge_Privacy::webhook_messages(
			array(
				'webhooks' => array(
					array( 'name' => 'CRM', 'url' => 'https://crm.example.com/hooks' ),
					array( 'name' => 'Mailer', 'url' => 'https://mail.example.com/in' ),
				),
			)
		);
		$this->assertSame(
			array(
				'Waypost had sent this person\'s data to: CRM (https://crm.example.com/hooks) — pass the request on '
					. 'to them.',
				'Waypost had sent this person\'s data to: Mailer (https://mail.example.com/in) — pass the request on '
					. 'to them.',
			),
			$messages
		);
		$this->assertSame( array(), Waypost_Bridge_Privacy::webhook_messages( array( 'webhooks' => array() ) ) );
	}
}
