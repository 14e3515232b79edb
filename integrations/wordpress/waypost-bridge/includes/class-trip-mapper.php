<?php
/**
 * A `trip` post as Waypost's trip record: title, slug, URL, status, code, destinations, activities, group size,
 * ages, duration and the "from" price, read from the post, its meta and the term tables.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * WP Travel Engine trip → Waypost trip.
 */
class Waypost_Bridge_Trip_Mapper extends Waypost_Bridge_Record_Values {

	/**
	 * @param WP_Post $post Trip.
	 * @return array
	 */
	public static function map( WP_Post $post ): array {
		$settings = self::arr( get_post_meta( $post->ID, 'wp_travel_engine_setting', true ) );
		$max_pax  = self::first_meta( $post->ID, array( 'total_travellers_per_day', 'max_travellers_per_day' ) );
		$slug     = '' !== $post->post_name ? $post->post_name : sanitize_title( $post->post_title );
		$record   = array(
			'title'        => self::text( $post->post_title, 300 ),
			'slug'         => self::text( $slug, 300 ),
			'url'          => self::trip_url( $post ),
			'status'       => self::trip_status( $post->post_status ),
			'code'         => self::text_or_null( $settings['trip_code'] ?? null, 100 ),
			'destinations' => self::term_names( $post->ID, array( 'destination' ) ),
			'activities'   => self::term_names( $post->ID, array( 'activities', 'activites' ) ),
			'group_size'   => array(
				'min' => self::count_or_null( $settings['trip_minimum_pax'] ?? null ),
				'max' => self::count_or_null( $max_pax ),
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
	private static function trip_url( WP_Post $post ): ?string {
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
	private static function trip_status( $status ): string {
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
	private static function trip_duration( array $settings ): ?array {
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
		$unit  = isset( $settings['trip_duration_unit'] )
			? strtolower( trim( (string) $settings['trip_duration_unit'] ) )
			: 'days';
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
	private static function trip_price( int $trip_id ): ?array {
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
	private static function term_names( int $post_id, array $taxonomies ): array {
		global $wpdb;
		$in    = implode( ',', array_fill( 0, count( $taxonomies ), '%s' ) );
		$names = $wpdb->get_col(
			$wpdb->prepare(
				// phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
				"SELECT t.name FROM {$wpdb->term_relationships} tr
				JOIN {$wpdb->term_taxonomy} tt ON tt.term_taxonomy_id = tr.term_taxonomy_id
				JOIN {$wpdb->terms} t ON t.term_id = tt.term_id
				WHERE tr.object_id = %d AND tt.taxonomy IN ($in) ORDER BY tr.term_order, t.name",
				array_merge( array( $post_id ), $taxonomies )
			)
		);
		$out = array();
		foreach ( array_slice( array_unique( (array) $names ), 0, 100 ) as $name ) {
			$out[] = self::text( html_entity_decode( (string) $name, ENT_QUOTES, 'UTF-8' ), 200 );
		}
		return $out;
	}
}
