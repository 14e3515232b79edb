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

/**
 * WordPress' __(): the text as given (no translations loaded).
 *
 * @param string $text   Text.
 * @param string $domain Text domain.
 * @return string
 */
function __( $text, $domain = 'default' ) {
	return $text;
}

/**
 * WordPress' sanitize_key().
 *
 * @param string $key Key.
 * @return string
 */
function sanitize_key( $key ) {
	return preg_replace( '/[^a-z0-9_\-]/', '', strtolower( (string) $key ) );
}

/**
 * WordPress' wp_json_encode().
 *
 * @param mixed $value Value.
 * @return string|false
 */
function wp_json_encode( $value ) {
	return json_encode( $value );
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
require_once $waypost_bridge_includes . '/class-privacy.php';
require_once $waypost_bridge_includes . '/class-privacy-items.php';

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
