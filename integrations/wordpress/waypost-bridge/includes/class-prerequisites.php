<?php
/**
 * What the bridge needs to send complete data, each with a verdict and what to do: the first card of the settings
 * page. WordPress and PHP below the floor never get here (the main file stops first); WP Travel Engine is read from
 * what WordPress knows (its constants when loaded, the active plugins, the version it recorded), and the cart version
 * from the newest booking.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * The prerequisites.
 */
class Waypost_Bridge_Prerequisites {

	/** Minimum versions. */
	public const MIN_WP   = '5.0';
	public const MIN_PHP  = '7.4';
	public const MIN_WTE  = '6.7.0';
	public const MIN_CART = '4.0';

	/**
	 * The prerequisites, each with a verdict and what to do.
	 *
	 * @return array[] array{id, label, ok: bool, value: string, help: string}
	 */
	public static function all(): array {
		global $wp_version;
		$checks = array();

		$checks[] = array(
			'id'    => 'wordpress',
			/* translators: %s: version */
			'label' => sprintf( __( 'WordPress %s or later', 'waypost-bridge' ), self::MIN_WP ),
			'ok'    => version_compare( $wp_version, self::MIN_WP, '>=' ),
			'value' => $wp_version,
			'help'  => __( 'Update WordPress from Dashboard > Updates.', 'waypost-bridge' ),
		);
		$checks[] = array(
			'id'    => 'php',
			/* translators: %s: version */
			'label' => sprintf( __( 'PHP %s or later', 'waypost-bridge' ), self::MIN_PHP ),
			'ok'    => version_compare( PHP_VERSION, self::MIN_PHP, '>=' ),
			'value' => PHP_VERSION,
			'help'  => __(
				'Ask your host to switch this site to PHP 7.4 or later (8.1+ recommended).',
				'waypost-bridge'
			),
		);

		$state    = self::wte_state();
		$active   = 'active' === $state;
		$version  = self::wte_version();
		$states   = array(
			'active'    => __( 'active', 'waypost-bridge' ),
			'inactive'  => __( 'installed, not active', 'waypost-bridge' ),
			'missing'   => __( 'listed as active, but its files are missing', 'waypost-bridge' ),
			'not_found' => __( 'not installed', 'waypost-bridge' ),
		);
		$install  = self::sentences(
			__( 'Install and activate WP Travel Engine (Plugins > Add New > "WP Travel Engine").', 'waypost-bridge' ),
			__( 'Without it there is nothing to send.', 'waypost-bridge' )
		);
		$checks[] = array(
			'id'    => 'wte_active',
			'label' => __( 'WP Travel Engine installed and active', 'waypost-bridge' ),
			'ok'    => $active,
			'value' => $states[ $state ],
			'help'  => 'inactive' === $state
				? __( 'Activate WP Travel Engine on the Plugins screen.', 'waypost-bridge' )
				: $install,
		);
		$version_ok = '' !== $version && version_compare( $version, self::MIN_WTE, '>=' );
		/* translators: %s: version */
		$recorded   = sprintf( __( '%s (recorded; the plugin is not active)', 'waypost-bridge' ), $version );
		$update     = self::sentences(
			__( 'Update WP Travel Engine from Dashboard > Updates.', 'waypost-bridge' ),
			__(
				'Bookings made before 6.7.0 use the old calculation system; Waypost leaves them out of the API.',
				'waypost-bridge'
			)
		);
		$checks[]   = array(
			'id'    => 'wte_version',
			/* translators: %s: version */
			'label' => sprintf( __( 'WP Travel Engine %s or later', 'waypost-bridge' ), self::MIN_WTE ),
			'ok'    => $active && $version_ok,
			'value' => '' === $version ? __( 'unknown', 'waypost-bridge' ) : ( $active ? $version : $recorded ),
			'help'  => $active || ! $version_ok ? $update : __( 'Activate WP Travel Engine first.', 'waypost-bridge' ),
		);

		$cart     = self::latest_cart_version();
		$cart_new = null === $cart['version'] || version_compare( $cart['version'], self::MIN_CART, '>=' );
		$cart_ok  = $active && $version_ok && $cart_new;
		$legacy   = __(
			'Bookings made before (cart 3.0) are sent with data_complete: false and no line items.',
			'waypost-bridge'
		);
		$needs    = self::sentences(
			__( 'Needs WP Travel Engine 6.7.0 or later, active: it makes cart 4.0 bookings.', 'waypost-bridge' ),
			$legacy
		);
		$convert  = self::sentences(
			__( 'The newest booking uses an older cart: it was made before WP Travel Engine 6.7.0.', 'waypost-bridge' ),
			$legacy,
			__( 'Convert them with WP Travel Engine\'s "Migrate to New Booking".', 'waypost-bridge' )
		);
		$checks[] = array(
			'id'    => 'cart',
			/* translators: %s: cart version */
			'label' => sprintf( __( 'New bookings use cart %s', 'waypost-bridge' ), self::MIN_CART ),
			'ok'    => $cart_ok,
			'value' => null === $cart['booking_id']
				? __( 'no bookings yet', 'waypost-bridge' )
				: sprintf(
					/* translators: 1: cart version, 2: booking id */
					__( 'cart %1$s (latest booking #%2$d)', 'waypost-bridge' ),
					$cart['version'],
					$cart['booking_id']
				),
			'help'  => ! $active || ! $version_ok ? $needs : $convert,
		);
		return $checks;
	}

	/**
	 * Sentences translated one by one (each short enough for one line of source), as one paragraph.
	 *
	 * @param string ...$sentences Translated sentences.
	 * @return string
	 */
	private static function sentences( string ...$sentences ): string {
		return implode( ' ', $sentences );
	}

	/**
	 * Whether WP Travel Engine runs: 'active' (its code is loaded), 'inactive' (installed, not active), 'missing'
	 * (listed as active but its files are gone) or 'not_found'.
	 *
	 * @return string
	 */
	private static function wte_state(): string {
		$loaded = defined( 'WP_TRAVEL_ENGINE_VERSION' ) || defined( 'WP_TRAVEL_ENGINE_FILE_PATH' );
		if ( $loaded || class_exists( '\\WPTravelEngine\\Plugin', false ) ) {
			return 'active';
		}
		$listed = false;
		$active = (array) get_option( 'active_plugins', array() );
		if ( is_multisite() ) {
			$network = array_keys( (array) get_site_option( 'active_sitewide_plugins', array() ) );
			$active  = array_merge( $active, $network );
		}
		foreach ( $active as $plugin ) {
			if ( '/wp-travel-engine.php' === substr( (string) $plugin, -strlen( '/wp-travel-engine.php' ) ) ) {
				$listed = true;
			}
		}
		$installed = file_exists( WP_PLUGIN_DIR . '/wp-travel-engine/wp-travel-engine.php' );
		if ( $installed ) {
			return 'inactive'; // Installed and perhaps listed, but its code did not load.
		}
		return $listed ? 'missing' : 'not_found';
	}

	/** WP Travel Engine's installed version ('' when unknown). */
	private static function wte_version(): string {
		// The version the product recorded when it installed or upgraded itself; the running code's constant if none.
		$version = (string) get_option( 'wptravelengine_version', '' );
		if ( '' === $version && defined( 'WP_TRAVEL_ENGINE_VERSION' ) ) {
			$version = (string) WP_TRAVEL_ENGINE_VERSION;
		}
		return $version;
	}

	/**
	 * The cart version of the newest booking (cart_info.version; absent means 3.0).
	 *
	 * @return array{booking_id: ?int, version: ?string}
	 */
	private static function latest_cart_version(): array {
		global $wpdb;
		$id = $wpdb->get_var(
			"SELECT ID FROM {$wpdb->posts} WHERE post_type = 'booking' AND post_status NOT IN ('trash', 'auto-draft')
			ORDER BY ID DESC LIMIT 1"
		);
		if ( ! $id ) {
			return array(
				'booking_id' => null,
				'version'    => null,
			);
		}
		$cart = get_post_meta( (int) $id, 'cart_info', true );
		$set  = is_array( $cart ) && isset( $cart['version'] ) && '' !== (string) $cart['version'];
		$ver  = $set ? (string) $cart['version'] : '3.0';
		return array(
			'booking_id' => (int) $id,
			'version'    => $ver,
		);
	}
}
