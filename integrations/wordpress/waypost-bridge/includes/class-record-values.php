<?php
/**
 * What every record mapper reads values with: text clipped to a length, money as a two-decimal string, currency
 * codes, e-mails, counts and dates checked, times as ISO 8601 UTC, the first non-empty of several keys or meta.
 * The mappers of each resource (class-*-mapper.php) extend it.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Value rules shared by the record mappers.
 */
abstract class Waypost_Bridge_Record_Values {

	/**
	 * Whether "Migrate to New Booking" replaced this legacy booking (or payment) with a copy that still exists.
	 *
	 * @param int $post_id Booking or payment.
	 * @return bool
	 */
	protected static function superseded( int $post_id ): bool {
		$copy_id = (int) get_post_meta( $post_id, '_migrated_to', true );
		if ( $copy_id <= 0 || $copy_id === (int) $post_id ) {
			return false;
		}
		$copy = get_post( $copy_id );
		return $copy instanceof WP_Post && ! in_array( $copy->post_status, Waypost_Bridge_Mapper::GONE_STATUSES, true );
	}

	/**
	 * Posts and their meta for many ids in two queries.
	 *
	 * @param int[] $ids Post ids.
	 */
	protected static function prime_posts( array $ids ): void {
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
	protected static function lead_traveller( array $travelers, ?string $email ): array {
		foreach ( $travelers as $traveler ) {
			$address = is_array( $traveler ) && isset( $traveler['email'] ) ? (string) $traveler['email'] : null;
			if ( null !== $email && null !== $address && strtolower( trim( $address ) ) === strtolower( $email ) ) {
				return $traveler;
			}
		}
		return isset( $travelers[0] ) && is_array( $travelers[0] ) ? $travelers[0] : array();
	}

	/** @return string The site currency (`wp_travel_engine_settings.currency_code`). */
	protected static function site_currency(): string {
		$settings = self::arr( get_option( 'wp_travel_engine_settings', array() ) );
		$code     = strtoupper( trim( (string) ( $settings['currency_code'] ?? '' ) ) );
		return preg_match( '/^[A-Z]{3}$/', $code ) ? $code : 'USD';
	}

	/**
	 * @param mixed $code A currency code.
	 * @return string It, upper-cased, when it is one; else the site currency.
	 */
	protected static function currency( $code ): string {
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
	public static function money( $value ): ?string {
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
	protected static function version( $value ): ?string {
		if ( ! is_scalar( $value ) || ! preg_match( '/^\s*v?(\d+(?:\.\d+){0,2})/', (string) $value, $m ) ) {
			return null;
		}
		return $m[1];
	}

	/**
	 * @param mixed $value A stored e-mail.
	 * @return string|null It, trimmed, when valid.
	 */
	protected static function email( $value ): ?string {
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
	protected static function text( $value, int $max ): string {
		$value = is_scalar( $value ) ? trim( (string) $value ) : '';
		return function_exists( 'mb_substr' ) ? mb_substr( $value, 0, $max, 'UTF-8' ) : substr( $value, 0, $max );
	}

	/**
	 * @param mixed $value Text.
	 * @param int   $max   Characters.
	 * @return string|null null for empty.
	 */
	protected static function text_or_null( $value, int $max ): ?string {
		$text = self::text( $value, $max );
		return '' === $text ? null : $text;
	}

	/**
	 * @param mixed $value A count.
	 * @return int|null
	 */
	protected static function count_or_null( $value ): ?int {
		return is_numeric( $value ) && (int) $value >= 0 ? (int) $value : null;
	}

	/**
	 * @param mixed $value An age.
	 * @return int|null
	 */
	protected static function age_or_null( $value ): ?int {
		return is_numeric( $value ) && (int) $value >= 0 && (int) $value <= 150 ? (int) $value : null;
	}

	/**
	 * @param mixed $value "2026-12-23", "2026-12-23T00:00", "2027-01-03 00:00:00".
	 * @return string|null Y-m-d.
	 */
	protected static function date_or_null( $value ): ?string {
		if ( ! is_scalar( $value ) || ! preg_match( '/^(\d{4})-(\d{2})-(\d{2})/', trim( (string) $value ), $m ) ) {
			return null;
		}
		return checkdate( (int) $m[2], (int) $m[3], (int) $m[1] ) ? $m[0] : null;
	}

	/**
	 * @param WP_Post $post Post.
	 * @return string ISO 8601 UTC of its publication.
	 */
	protected static function post_time( WP_Post $post ): string {
		return self::gmt_time( $post->post_date_gmt, $post->post_date );
	}

	/**
	 * @param string $gmt   MySQL datetime in UTC (zero for drafts).
	 * @param string $local The same in the site's time zone.
	 * @return string ISO 8601 UTC.
	 */
	protected static function gmt_time( $gmt, $local ): string {
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
	protected static function local_time( $value ): ?string {
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
	protected static function site_timezone(): DateTimeZone {
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
		$sign    = $seconds < 0 ? '-' : '+';
		return new DateTimeZone( sprintf( '%s%02d:%02d', $sign, abs( $seconds ) / 3600, abs( $seconds ) % 3600 / 60 ) );
	}

	/**
	 * @param mixed $value Anything.
	 * @return array It when it is an array, else [].
	 */
	protected static function arr( $value ): array {
		return is_array( $value ) ? $value : array();
	}

	/**
	 * The first non-empty scalar among these keys of these arrays.
	 *
	 * @param array[]  $sources Arrays, searched in order.
	 * @param string[] $keys    Keys, searched in order within each array.
	 * @return mixed|null
	 */
	protected static function first_of( array $sources, array $keys ) {
		foreach ( $sources as $source ) {
			foreach ( $keys as $key ) {
				$value = is_array( $source ) ? ( $source[ $key ] ?? null ) : null;
				if ( is_scalar( $value ) && '' !== trim( (string) $value ) ) {
					return $value;
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
	protected static function first_meta( int $post_id, array $keys ) {
		foreach ( $keys as $key ) {
			$value = get_post_meta( $post_id, $key, true );
			if ( is_scalar( $value ) && '' !== trim( (string) $value ) ) {
				return $value;
			}
		}
		return null;
	}
}
