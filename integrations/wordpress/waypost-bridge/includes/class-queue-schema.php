<?php
/**
 * The retry queue's table `{$wpdb->prefix}waypost_queue`: created on activation, and on `plugins_loaded` for a
 * plugin copied in (never activated) or updated with a newer schema version, with dbDelta.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Creates and upgrades the queue table.
 */
class Waypost_Bridge_Queue_Schema {

	/** Bump when the table definition changes; `plugins_loaded` runs dbDelta again when the stored one is older. */
	public const SCHEMA_VERSION = '1';

	public const SCHEMA_OPTION = 'waypost_bridge_queue_schema';

	/**
	 * Hooks the schema upgrade for a copied-in plugin.
	 */
	public static function register(): void {
		add_action( 'plugins_loaded', array( __CLASS__, 'maybe_install' ), 1 );
	}

	/**
	 * Creates or upgrades the table (activation, and `plugins_loaded` when the stored schema version is older).
	 */
	public static function install(): void {
		global $wpdb;
		require_once ABSPATH . 'wp-admin/includes/upgrade.php';
		$table   = Waypost_Bridge_Queue::table();
		$charset = $wpdb->get_charset_collate();
		// dbDelta's format: two spaces after PRIMARY KEY, one column or key per line.
		dbDelta(
			"CREATE TABLE {$table} (
  id bigint(20) unsigned NOT NULL AUTO_INCREMENT,
  resource varchar(20) NOT NULL,
  record_id bigint(20) unsigned NOT NULL,
  op varchar(10) NOT NULL DEFAULT 'put',
  attempts int(10) unsigned NOT NULL DEFAULT 0,
  next_attempt_at datetime NULL DEFAULT NULL,
  last_error text NULL,
  revision int(10) unsigned NOT NULL DEFAULT 0,
  created_at datetime NOT NULL,
  updated_at datetime NOT NULL,
  PRIMARY KEY  (id),
  UNIQUE KEY resource_record (resource,record_id),
  KEY next_attempt_at (next_attempt_at)
) {$charset};"
		);
		update_option( self::SCHEMA_OPTION, self::SCHEMA_VERSION, true );
		if ( ! wp_next_scheduled( Waypost_Bridge_Queue_Runner::CRON_HOOK_HOURLY ) ) {
			wp_schedule_event( time() + HOUR_IN_SECONDS, 'hourly', Waypost_Bridge_Queue_Runner::CRON_HOOK_HOURLY );
		}
		// Rows kept over a deactivation (which unscheduled their retry).
		$next = Waypost_Bridge_Queue_Stats::next_due();
		if ( null !== $next ) {
			Waypost_Bridge_Queue_Runner::schedule( $next );
		}
	}

	/**
	 * A plugin copied into wp-content/plugins (or updated by copying) is never "activated": create the table here.
	 * The option is autoloaded, so this costs no query once the table exists.
	 */
	public static function maybe_install(): void {
		try {
			if ( version_compare( (string) get_option( self::SCHEMA_OPTION, '0' ), self::SCHEMA_VERSION, '<' ) ) {
				self::install();
			}
		} catch ( \Throwable $e ) {
			Waypost_Bridge_Queue::log( 'could not create the queue table: ' . $e->getMessage() );
		}
	}
}
