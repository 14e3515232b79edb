<?php
/**
 * An `enquiry` post as Waypost's enquiry record (the current form data, else the legacy settings).
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * WP Travel Engine enquiry → Waypost enquiry.
 */
class Waypost_Bridge_Enquiry_Mapper extends Waypost_Bridge_Record_Values {

	/**
	 * @param WP_Post $post Enquiry.
	 * @return array|null
	 */
	public static function map( WP_Post $post ): ?array {
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
			$title     = $trip_post instanceof WP_Post
				? $trip_post->post_title
				: wp_strip_all_tags( (string) self::first_of( array( $form ), array( 'package_name' ) ) );
			$trip      = array(
				'id'    => $trip_id,
				'title' => self::text( html_entity_decode( (string) $title, ENT_QUOTES, 'UTF-8' ), 300 ),
			);
		}
		$phone   = self::first_of( array( $form ), array( 'enquiry_contact', 'enquiry_phone' ) );
		$message = self::first_of( array( $form, $legacy ), array( 'enquiry_message', 'message' ) );
		return array(
			'full_name'  => self::text( null === $name ? $post->post_title : (string) $name, 300 ),
			'email'      => $email,
			'phone'      => self::text_or_null( $phone, 50 ),
			'country'    => self::text_or_null( self::first_of( array( $form ), array( 'enquiry_country' ) ), 100 ),
			'message'    => self::text_or_null( $message, 10000 ),
			'trip'       => $trip,
			'created_at' => self::post_time( $post ),
		);
	}
}
