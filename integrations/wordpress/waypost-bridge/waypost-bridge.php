<?php
/**
 * Plugin Name:       Waypost Bridge
 * Description:       Sends WP Travel Engine's records and reviews to Waypost (webhooks and a read-only REST API).
 * Version:           0.1.0
 * Requires at least: 5.0
 * Requires PHP:      7.4
 * Author:            Waypost
 * License:           GPL-2.0-or-later
 * License URI:       https://www.gnu.org/licenses/gpl-2.0.html
 * Text Domain:       waypost-bridge
 * Domain Path:       /languages
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

add_action(
	'init',
	static function () {
		// Translations from wordpress.org (wp-content/languages/plugins/) first, else the plugin's own languages/.
		load_plugin_textdomain( 'waypost-bridge', false, dirname( plugin_basename( __FILE__ ) ) . '/languages' );
	}
);

// WordPress 5.2+ refuses to activate a plugin whose "Requires" headers it does not meet; WordPress 5.0 and 5.1 do
// not, and an old PHP would stop at the first newer syntax in includes/. So this file (plain enough for PHP 5.6)
// checks first and, when the site is too old, loads nothing and says what the plugin needs.
if ( version_compare( PHP_VERSION, '7.4', '<' ) || version_compare( (string) $GLOBALS['wp_version'], '5.0', '<' ) ) {
	$waypost_bridge_too_old = static function () {
		if ( ! current_user_can( 'activate_plugins' ) ) {
			return;
		}
		/* translators: 1: WordPress version, 2: PHP version */
		$needs = __(
			'Waypost Bridge needs WordPress 5.0 and PHP 7.4 or later; this site runs WordPress %1$s on PHP %2$s.',
			'waypost-bridge'
		);
		echo '<div class="notice notice-error" id="waypost-bridge-requirements"><p>';
		echo esc_html( sprintf( $needs, $GLOBALS['wp_version'], PHP_VERSION ) );
		echo ' ' . esc_html__( 'It sends nothing until WordPress or PHP is updated.', 'waypost-bridge' );
		echo '</p></div>';
	};
	add_action( 'admin_notices', $waypost_bridge_too_old );
	add_action( 'network_admin_notices', $waypost_bridge_too_old );
	return;
}

define( 'WAYPOST_BRIDGE_VERSION', '0.1.0' );
define( 'WAYPOST_BRIDGE_FILE', __FILE__ );
define( 'WAYPOST_BRIDGE_DIR', __DIR__ );

/** WP-Cron events the plugin schedules (uninstall.php lists them too: it runs without this file). */
const WAYPOST_BRIDGE_CRON_HOOKS = array(
	'waypost_bridge_retry_queue',
	'waypost_bridge_retry_queue_hourly',
	'waypost_bridge_backfill_continue',
);

// One class per file in includes/: Waypost_Bridge_Foo_Bar lives in includes/class-foo-bar.php. The parts call each
// other, so all of them are needed: a copy with a file missing (an interrupted upload or update) runs none of them,
// and every admin page says so, rather than forwarding some changes and silently not others.
$waypost_bridge_missing = array();
$waypost_bridge_parts = array(
	'connection',
	'client',
	'batch-client',
	'connection-check',
	'record-values',
	'mapper',
	'trip-mapper',
	'customer-mapper',
	'booking-mapper',
	'payment-mapper',
	'enquiry-mapper',
	'review-mapper',
	'queue',
	'queue-schema',
	'queue-stats',
	'queue-runner',
	'sender',
	'planner',
	'forwarder',
	'erasure-queue',
	'privacy-items',
	'privacy',
	'collector',
	'hooks',
	'prerequisites',
	'settings-page',
	'settings-actions',
	'backfill-state',
	'backfill-cursor',
	'backfill-batch',
	'sending-lock',
	'backfill',
	'cli',
);
foreach ( $waypost_bridge_parts as $waypost_bridge_slug ) {
	$waypost_bridge_file = __DIR__ . '/includes/class-' . $waypost_bridge_slug . '.php';
	if ( ! is_readable( $waypost_bridge_file ) ) {
		$waypost_bridge_missing[] = 'includes/class-' . $waypost_bridge_slug . '.php';
	} elseif ( '-mapper' !== substr( $waypost_bridge_slug, -7 ) || class_exists( 'Waypost_Bridge_Record_Values' ) ) {
		require_once $waypost_bridge_file; // The mappers extend Waypost_Bridge_Record_Values: not without it.
	}
}
// The settings page's templates, script and stylesheet, loaded when the page is shown.
$waypost_bridge_files = array(
	'views/html-settings-page.php',
	'views/html-prerequisites.php',
	'views/html-connection.php',
	'views/html-queue.php',
	'views/html-backfill.php',
	'assets/admin.js',
	'assets/admin.css',
);
foreach ( $waypost_bridge_files as $waypost_bridge_file ) {
	if ( ! is_readable( __DIR__ . '/' . $waypost_bridge_file ) ) {
		$waypost_bridge_missing[] = $waypost_bridge_file;
	}
}

if ( $waypost_bridge_missing ) {
	$waypost_bridge_notice = static function () use ( $waypost_bridge_missing ) {
		if ( ! current_user_can( 'activate_plugins' ) ) {
			return;
		}
		echo '<div class="notice notice-error" id="waypost-bridge-incomplete"><p>';
		echo esc_html(
			sprintf(
				/* translators: %s: file names */
				__( 'Waypost Bridge is incomplete and sends nothing to Waypost: %s missing.', 'waypost-bridge' ),
				implode( ', ', $waypost_bridge_missing ) . ( count( $waypost_bridge_missing ) > 1 ? ' are' : ' is' )
			)
		);
		echo ' ' . esc_html__(
			'Install the plugin again (delete it and upload the whole folder); the retry queue and settings are kept.',
			'waypost-bridge'
		);
		echo '</p></div>';
	};
	add_action( 'admin_notices', $waypost_bridge_notice );
	add_action( 'network_admin_notices', $waypost_bridge_notice );
} else {
	$waypost_bridge_registered = array(
		'Waypost_Bridge_Queue_Schema',
		'Waypost_Bridge_Queue_Runner',
		'Waypost_Bridge_Hooks',
		'Waypost_Bridge_Privacy',
		'Waypost_Bridge_Settings_Page',
		'Waypost_Bridge_Backfill',
		'Waypost_Bridge_Cli',
	);
	foreach ( $waypost_bridge_registered as $waypost_bridge_part ) {
		call_user_func( array( $waypost_bridge_part, 'register' ) );
	}
}

register_activation_hook(
	__FILE__,
	static function () {
		if ( class_exists( 'Waypost_Bridge_Queue_Schema', false ) ) {
			Waypost_Bridge_Queue_Schema::install();
		}
	}
);

// Deactivated: nothing of ours may run from WP-Cron any more (on every site, when deactivated network-wide). The
// queue, the settings and a backfill's position stay for a reactivation; uninstall.php removes them.
register_deactivation_hook(
	__FILE__,
	static function ( $network_wide = false ) {
		$clear = static function () {
			if ( class_exists( 'Waypost_Bridge_Backfill', false ) ) {
				Waypost_Bridge_Backfill::cancel(); // Not "running" with no event left; its position is kept.
			}
			foreach ( WAYPOST_BRIDGE_CRON_HOOKS as $hook ) {
				wp_unschedule_hook( $hook ); // Every instance, whatever its arguments.
			}
		};
		if ( ! $network_wide || ! is_multisite() ) {
			$clear();
			return;
		}
		foreach ( get_sites( array( 'fields' => 'ids', 'number' => 0 ) ) as $site_id ) {
			switch_to_blog( (int) $site_id );
			$clear();
			restore_current_blog();
		}
	}
);
