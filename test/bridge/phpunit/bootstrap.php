<?php
/**
 * Loads the bridge's classes without WordPress: each file only needs ABSPATH defined (its guard), and the few
 * WordPress functions the rules under test call are stubbed here over an in-memory option table.
 *
 * @package WaypostBridge
 */

define( 'ABSPATH', __DIR__ . '/' );

/** Options the tests set (get_option() reads them). */
$GLOBALS['waypost_test_options'] = array();

/**
 * WordPress' get_option(), over the tests' options.
 *
 * @param string $name    Option.
 * @param mixed  $default Default.
 * @return mixed
 */
function get_option( $name, $default = false ) {
	return array_key_exists( $name, $GLOBALS['waypost_test_options'] ) ? $GLOBALS['waypost_test_options'][ $name ] : $default;
}

$waypost_bridge_includes = dirname( __DIR__, 3 ) . '/integrations/wordpress/waypost-bridge/includes';
require_once $waypost_bridge_includes . '/class-record-values.php';
require_once $waypost_bridge_includes . '/class-mapper.php';
require_once $waypost_bridge_includes . '/class-booking-mapper.php';
require_once $waypost_bridge_includes . '/class-payment-mapper.php';
require_once $waypost_bridge_includes . '/class-trip-mapper.php';
require_once $waypost_bridge_includes . '/class-sender.php';
require_once $waypost_bridge_includes . '/class-queue.php';
require_once $waypost_bridge_includes . '/class-client.php';

/**
 * Calls a private static method (the rules are private to their class; these tests pin them down).
 *
 * @param string $class  Class.
 * @param string $method Method.
 * @param mixed  ...$args Arguments.
 * @return mixed
 */
function waypost_call( string $class, string $method, ...$args ) {
	$m = new ReflectionMethod( $class, $method );
	$m->setAccessible( true );
	return $m->invoke( null, ...$args );
}
