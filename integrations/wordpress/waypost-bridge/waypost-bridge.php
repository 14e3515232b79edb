<?php
/**
 * Plugin Name:       Waypost Bridge
 * Description:       Sends WP Travel Engine's trips, bookings, customers, payments, enquiries and reviews to Waypost
 *                    (webhooks and a read-only REST API). Settings > Webhooks & API.
 * Version:           0.1.0
 * Requires at least: 5.0
 * Requires PHP:      7.4
 * Author:            Waypost
 * License:           GPL-2.0-or-later
 * License URI:       https://www.gnu.org/licenses/gpl-2.0.html
 * Text Domain:       waypost-bridge
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

define( 'WAYPOST_BRIDGE_VERSION', '0.1.0' );
define( 'WAYPOST_BRIDGE_FILE', __FILE__ );
define( 'WAYPOST_BRIDGE_DIR', __DIR__ );

// One class per file in includes/: Waypost_Bridge_Foo_Bar lives in includes/class-foo-bar.php.
spl_autoload_register(
	static function ( $class ) {
		if ( 0 !== strpos( $class, 'Waypost_Bridge_' ) ) {
			return;
		}
		$slug = strtolower( str_replace( '_', '-', substr( $class, strlen( 'Waypost_Bridge_' ) ) ) );
		$file = WAYPOST_BRIDGE_DIR . '/includes/class-' . $slug . '.php';
		if ( is_readable( $file ) ) {
			require_once $file;
		}
	}
);

// Each part registers its own hooks; a part whose file is absent is skipped.
foreach ( array( 'Waypost_Bridge_Queue', 'Waypost_Bridge_Forwarder', 'Waypost_Bridge_Settings_Page', 'Waypost_Bridge_Backfill', 'Waypost_Bridge_Cli' ) as $waypost_bridge_part ) {
	if ( class_exists( $waypost_bridge_part ) && method_exists( $waypost_bridge_part, 'register' ) ) {
		call_user_func( array( $waypost_bridge_part, 'register' ) );
	}
}

register_activation_hook(
	__FILE__,
	static function () {
		if ( class_exists( 'Waypost_Bridge_Queue' ) ) {
			Waypost_Bridge_Queue::install();
		}
	}
);
