<?php
/**
 * Waypost's export document (POST /host/v1/exports) as WordPress's personal data export items: one item per record
 * (customer, booking, payment, enquiry, review) with its fields as readable name/value pairs, and one per delivery of
 * the person's data to a webhook (event, webhook name and URL, status, time), all in the group "Waypost".
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Export items.
 */
class Waypost_Bridge_Privacy_Items {

	public const GROUP = 'waypost';

	/** Nesting levels spelled out as their own pairs (deeper values are written as JSON). */
	private const DEPTH = 5;

	/**
	 * Every item of an export document.
	 *
	 * @param array $document Waypost's export: {records: {resource: [record…]}, deliveries: [delivery…]}.
	 * @return array[] Items: group_id, group_label, group_description, item_id, data: [{name, value}…].
	 */
	public static function items( array $document ): array {
		$items   = array();
		$records = isset( $document['records'] ) && is_array( $document['records'] ) ? $document['records'] : array();
		foreach ( $records as $resource => $list ) {
			foreach ( is_array( $list ) ? $list : array() as $record ) {
				if ( is_array( $record ) ) {
					$items[] = self::record_item( (string) $resource, $record );
				}
			}
		}
		$deliveries = isset( $document['deliveries'] ) && is_array( $document['deliveries'] )
			? $document['deliveries'] : array();
		foreach ( $deliveries as $delivery ) {
			if ( is_array( $delivery ) ) {
				$items[] = self::delivery_item( $delivery );
			}
		}
		return $items;
	}

	/**
	 * One record: "Record" (e.g. "Booking 1234") first, then its fields.
	 *
	 * @param string $resource customers|bookings|payments|enquiries|reviews.
	 * @param array  $record   The record as Waypost's REST API shows it.
	 */
	public static function record_item( string $resource, array $record ): array {
		$id    = isset( $record['id'] ) && is_scalar( $record['id'] ) ? (string) $record['id'] : '';
		$data  = array( self::pair( __( 'Record', 'waypost-bridge' ), trim( self::kind( $resource ) . ' ' . $id ) ) );
		$data  = array_merge( $data, self::pairs( $record, '', 0 ) );
		$item  = self::item( 'waypost-' . sanitize_key( $resource ) . '-' . sanitize_key( $id ), $data );
		return $item;
	}

	/**
	 * One delivery of the person's data to a webhook.
	 *
	 * @param array $delivery {id, event_id, event_type, webhook: {id, name, url}, status, attempts, created_at,
	 *                        completed_at}.
	 */
	public static function delivery_item( array $delivery ): array {
		$webhook = isset( $delivery['webhook'] ) && is_array( $delivery['webhook'] ) ? $delivery['webhook'] : array();
		$fields  = array(
			__( 'Record', 'waypost-bridge' )      => __( 'Delivery to a webhook', 'waypost-bridge' ),
			__( 'Event', 'waypost-bridge' )       => self::get( $delivery, 'event_type' ),
			__( 'Webhook', 'waypost-bridge' )     => self::get( $webhook, 'name' ),
			__( 'Webhook URL', 'waypost-bridge' ) => self::get( $webhook, 'url' ),
			__( 'Status', 'waypost-bridge' )      => self::get( $delivery, 'status' ),
			__( 'Attempts', 'waypost-bridge' )    => self::get( $delivery, 'attempts' ),
			__( 'Sent at', 'waypost-bridge' )     => self::get( $delivery, 'created_at' ),
			__( 'Completed at', 'waypost-bridge' ) => self::get( $delivery, 'completed_at' ),
			__( 'Event id', 'waypost-bridge' )    => self::get( $delivery, 'event_id' ),
		);
		$data    = array();
		foreach ( $fields as $name => $value ) {
			if ( '' !== $value ) {
				$data[] = self::pair( $name, $value );
			}
		}
		return self::item( 'waypost-delivery-' . sanitize_key( self::get( $delivery, 'id' ) ), $data );
	}

	/**
	 * The one item of an export made while Waypost could not be reached: the export goes on without its part.
	 *
	 * @param string $why Why (the client's error).
	 */
	public static function unreachable( string $why ): array {
		$text = __( 'Waypost could not be reached, so what it holds is missing from this export:', 'waypost-bridge' );
		$then = __( 'Export again once Waypost answers.', 'waypost-bridge' );
		return self::item( 'waypost-unreachable', array( self::pair( 'Waypost', $text . ' ' . $why . '. ' . $then ) ) );
	}

	/**
	 * A record's fields as pairs: "First name: Ana", nested ones as "Trips 1 › Line items 2 › Label: Adult"; empty
	 * values are left out.
	 *
	 * @param array  $values Fields.
	 * @param string $prefix Label of the enclosing field ('' at the top).
	 * @param int    $depth  Nesting level.
	 * @return array[]
	 */
	private static function pairs( array $values, string $prefix, int $depth ): array {
		$pairs = array();
		$list  = array_keys( $values ) === range( 0, count( $values ) - 1 );
		if ( $list && count( array_filter( $values, 'is_array' ) ) === 0 ) {
			$scalars = array_filter( array_map( array( __CLASS__, 'text' ), $values ), 'strlen' );
			return $scalars ? array( self::pair( $prefix, implode( ', ', $scalars ) ) ) : array();
		}
		foreach ( $values as $key => $value ) {
			$label = $list ? (string) ( $key + 1 ) : self::label( (string) $key );
			$label = '' === $prefix ? $label : $prefix . ' › ' . $label;
			if ( is_array( $value ) && $depth < self::DEPTH ) {
				$pairs = array_merge( $pairs, self::pairs( $value, $label, $depth + 1 ) );
				continue;
			}
			$text = self::text( $value );
			if ( '' !== $text ) {
				$pairs[] = self::pair( $label, $text );
			}
		}
		return $pairs;
	}

	/**
	 * "first_name" => "First name".
	 *
	 * @param string $key Field name.
	 */
	public static function label( string $key ): string {
		return ucfirst( str_replace( '_', ' ', $key ) );
	}

	/**
	 * A value as text: '' for nothing, "yes"/"no", numbers and strings as they are, anything deeper as JSON.
	 *
	 * @param mixed $value Value.
	 */
	private static function text( $value ): string {
		if ( null === $value || array() === $value ) {
			return '';
		}
		if ( is_bool( $value ) ) {
			return $value ? __( 'yes', 'waypost-bridge' ) : __( 'no', 'waypost-bridge' );
		}
		return is_scalar( $value ) ? (string) $value : (string) wp_json_encode( $value );
	}

	/**
	 * "customers" => "Customer".
	 *
	 * @param string $resource Resource.
	 */
	private static function kind( string $resource ): string {
		$kinds = array(
			'customers' => __( 'Customer', 'waypost-bridge' ),
			'bookings'  => __( 'Booking', 'waypost-bridge' ),
			'payments'  => __( 'Payment', 'waypost-bridge' ),
			'enquiries' => __( 'Enquiry', 'waypost-bridge' ),
			'reviews'   => __( 'Review', 'waypost-bridge' ),
		);
		return isset( $kinds[ $resource ] ) ? $kinds[ $resource ] : self::label( $resource );
	}

	/**
	 * @param array  $values Values.
	 * @param string $key    Key.
	 */
	private static function get( array $values, string $key ): string {
		return isset( $values[ $key ] ) ? self::text( $values[ $key ] ) : '';
	}

	/**
	 * @param string $name  Name.
	 * @param string $value Value.
	 */
	private static function pair( string $name, string $value ): array {
		return array(
			'name'  => $name,
			'value' => $value,
		);
	}

	/**
	 * @param string  $item_id Item id.
	 * @param array[] $data    Pairs.
	 */
	private static function item( string $item_id, array $data ): array {
		return array(
			'group_id'          => self::GROUP,
			'group_label'       => __( 'Waypost', 'waypost-bridge' ),
			'group_description' => __(
				'What Waypost (webhooks, REST API) holds about this person, and when it sent their data to webhooks.',
				'waypost-bridge'
			),
			'item_id'           => $item_id,
			'data'              => $data,
		);
	}
}
