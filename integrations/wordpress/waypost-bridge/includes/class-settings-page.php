<?php
/**
 * Settings > Webhooks & API: the controller. It adds the page, enqueues its CSS and JS (assets/, on this page only),
 * gathers what each card shows and renders the templates in views/. What the page's forms and its script do is in
 * Waypost_Bridge_Settings_Actions; the prerequisites are Waypost_Bridge_Prerequisites.
 *
 * The host token is never printed: only its last four characters.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * The admin page.
 */
class Waypost_Bridge_Settings_Page {

	public const SLUG = 'waypost-bridge';

	/** admin-post.php actions (each with a nonce of the same name), handled by Waypost_Bridge_Settings_Actions. */
	public const ACTIONS = array(
		'save_connection' => 'waypost_bridge_save_connection',
		'test_connection' => 'waypost_bridge_test_connection',
		'retry_now'       => 'waypost_bridge_retry_now',
		'backfill_start'  => 'waypost_bridge_backfill_start',
		'backfill_cancel' => 'waypost_bridge_backfill_cancel',
		'open_console'    => 'waypost_bridge_open_console',
	);

	/** admin-ajax action (and nonce) of assets/admin.js: one step of a running backfill, answering its progress. */
	public const AJAX_STEP = 'waypost_bridge_backfill_step';

	/** @var string The page's hook suffix (its assets are enqueued there only). */
	private static $hook = '';

	/**
	 * Hooks.
	 */
	public static function register(): void {
		add_action( 'admin_menu', array( __CLASS__, 'menu' ) );
		add_action( 'admin_enqueue_scripts', array( __CLASS__, 'enqueue' ) );
		$links = 'plugin_action_links_' . plugin_basename( WAYPOST_BRIDGE_FILE );
		add_filter( $links, array( __CLASS__, 'action_links' ) );
		Waypost_Bridge_Settings_Actions::register();
	}

	/**
	 * Who may see and change these settings: manage_options; on a multisite network manage_network_options, since a
	 * site's administrator there is not trusted with the server (no plugin or wp-config.php editing) and these
	 * settings decide where the site's data and a host token are sent.
	 */
	public static function capability(): string {
		return is_multisite() ? 'manage_network_options' : 'manage_options';
	}

	/** Settings > Webhooks & API. */
	public static function menu(): void {
		$hook       = add_options_page(
			__( 'Webhooks & API', 'waypost-bridge' ),
			__( 'Webhooks & API', 'waypost-bridge' ),
			self::capability(),
			self::SLUG,
			array( __CLASS__, 'render' )
		);
		self::$hook = is_string( $hook ) ? $hook : '';
	}

	/**
	 * The page's stylesheet and script, on this page only.
	 *
	 * @param string $hook_suffix The admin page being loaded.
	 */
	public static function enqueue( $hook_suffix ): void {
		if ( '' === self::$hook || self::$hook !== $hook_suffix ) {
			return;
		}
		$base = plugins_url( 'assets/', WAYPOST_BRIDGE_FILE );
		wp_enqueue_style( 'waypost-bridge-admin', $base . 'admin.css', array(), WAYPOST_BRIDGE_VERSION );
		wp_enqueue_script( 'waypost-bridge-admin', $base . 'admin.js', array(), WAYPOST_BRIDGE_VERSION, true );
		wp_localize_script(
			'waypost-bridge-admin',
			'waypostBridge',
			array(
				'ajaxUrl'    => admin_url( 'admin-ajax.php' ),
				'stepAction' => self::AJAX_STEP,
				'stepNonce'  => wp_create_nonce( self::AJAX_STEP ),
			)
		);
	}

	/**
	 * "Settings" link on the Plugins screen.
	 *
	 * @param array $links Links.
	 */
	public static function action_links( $links ): array {
		array_unshift( $links, '<a href="' . esc_url( self::url() ) . '">' . esc_html__(
			'Settings',
			'waypost-bridge'
		) . '</a>' );
		return $links;
	}

	/**
	 * The page's URL.
	 *
	 * @param array $args Extra query arguments.
	 */
	public static function url( array $args = array() ): string {
		return add_query_arg( array_merge( array( 'page' => self::SLUG ), $args ), admin_url( 'options-general.php' ) );
	}

	/**
	 * Whether a URL sends the token in clear text over the network (http:// to a host other than this machine).
	 *
	 * @param string $url URL.
	 */
	public static function is_insecure_url( $url ): bool {
		if ( 0 !== stripos( (string) $url, 'http://' ) ) {
			return false;
		}
		$host = strtolower( trim( (string) wp_parse_url( $url, PHP_URL_HOST ), '[]' ) );
		if ( 'localhost' === $host || '::1' === $host || '.localhost' === substr( $host, -10 ) ) {
			return false;
		}
		return ! ( filter_var( $host, FILTER_VALIDATE_IP, FILTER_FLAG_IPV4 ) && 0 === strpos( $host, '127.' ) );
	}

	// ------------------------------------------------------------------------------------------------ rendering

	/**
	 * The page.
	 */
	public static function render(): void {
		if ( ! current_user_can( self::capability() ) ) {
			wp_die( esc_html__( 'Sorry, you are not allowed to manage these settings.', 'waypost-bridge' ), 403 );
		}
		$notice     = Waypost_Bridge_Settings_Actions::take_notice();
		$configured = Waypost_Bridge_Connection::is_configured();
		include WAYPOST_BRIDGE_DIR . '/views/html-settings-page.php';
	}

	/** The Prerequisites card. */
	public static function render_prerequisites(): void {
		$checks = Waypost_Bridge_Prerequisites::all();
		$all_ok = ! in_array( false, wp_list_pluck( $checks, 'ok' ), true );
		include WAYPOST_BRIDGE_DIR . '/views/html-prerequisites.php';
	}

	/** The Connection card. */
	public static function render_connection(): void {
		$url_constant   = Waypost_Bridge_Connection::url_from_constant();
		$token_constant = Waypost_Bridge_Connection::token_from_constant();
		$url            = Waypost_Bridge_Connection::get_url();
		$hint           = Waypost_Bridge_Connection::token_hint();
		$problem        = Waypost_Bridge_Connection::token_problem();
		$read_only      = $url_constant && $token_constant;
		include WAYPOST_BRIDGE_DIR . '/views/html-connection.php';
	}

	/**
	 * The Retry queue card.
	 *
	 * @param bool $configured Connection set.
	 */
	public static function render_queue( bool $configured ): void {
		$count         = Waypost_Bridge_Queue_Stats::count();
		$parked        = $count ? Waypost_Bridge_Queue_Stats::parked_count() : 0;
		$oldest        = $count ? Waypost_Bridge_Queue_Stats::oldest() : null;
		$error         = $count ? Waypost_Bridge_Queue_Stats::last_error() : null;
		$next          = $count ? Waypost_Bridge_Queue_Stats::next_due() : null;
		$cron_disabled = Waypost_Bridge_Backfill::wp_cron_disabled();
		$erasures      = array_values( Waypost_Bridge_Erasure_Queue::all() ); // Erase Personal Data, not sent yet.
		include WAYPOST_BRIDGE_DIR . '/views/html-queue.php';
	}

	/**
	 * The Existing records card.
	 *
	 * @param bool $configured Connection set.
	 */
	public static function render_backfill( bool $configured ): void {
		$status        = self::backfill_status();
		$cron_disabled = Waypost_Bridge_Backfill::wp_cron_disabled();
		include WAYPOST_BRIDGE_DIR . '/views/html-backfill.php';
	}

	/**
	 * Hidden fields of an admin-post form: the action and its nonce.
	 *
	 * @param string $key Key in ACTIONS.
	 */
	public static function action_fields( $key ): void {
		$action = self::ACTIONS[ $key ];
		echo '<input type="hidden" name="action" value="' . esc_attr( $action ) . '">';
		wp_nonce_field( $action, '_waypost_nonce', false );
	}

	/**
	 * Backfill progress for the page, from Waypost_Bridge_Backfill_State::status().
	 *
	 * @return array{running: bool, started: bool, finished: bool, done: int, sent: int, unchanged: int, failed: int,
	 *               skipped: int, total: int, error: ?string}
	 */
	public static function backfill_status(): array {
		try {
			$raw = (array) Waypost_Bridge_Backfill_State::status();
		} catch ( \Throwable $e ) {
			$raw = array( 'last_error' => $e->getMessage() );
		}
		$int      = static function ( $key ) use ( $raw ) {
			return isset( $raw[ $key ] ) && is_numeric( $raw[ $key ] ) ? (int) $raw[ $key ] : 0;
		};
		$total    = $int( 'total' );
		$finished = ! empty( $raw['done'] );
		$error    = isset( $raw['last_error'] ) && is_string( $raw['last_error'] ) && '' !== $raw['last_error']
			? $raw['last_error']
			: null;
		return array(
			'running'   => ! empty( $raw['running'] ),
			'started'   => ! empty( $raw['started_at'] ) || $total > 0,
			'finished'  => $finished,
			'done'      => $finished ? $total : min( $total, $int( 'position' ) ),
			'sent'      => $int( 'sent' ),
			'unchanged' => $int( 'unchanged' ),
			'failed'    => $int( 'failed' ),
			'skipped'   => $int( 'skipped' ),
			'total'     => $total,
			'error'     => $error,
		);
	}

	/**
	 * One line about the backfill: "Done: 23 of 23 records (0 sent, 23 unchanged, 0 skipped, 0 failed)."
	 *
	 * @param array $s Status from backfill_status().
	 */
	public static function backfill_text( array $s ): string {
		// Sent: Waypost stored a change; unchanged: Waypost had them as they are; skipped: not sendable (half-written,
		// unapproved).
		$counts = sprintf(
			/* translators: 1: done, 2: total, 3: sent, 4: unchanged, 5: skipped, 6: failed (counts of records) */
			__( '%1$s of %2$s records (%3$s sent, %4$s unchanged, %5$s skipped, %6$s failed)', 'waypost-bridge' ),
			number_format_i18n( $s['done'] ),
			number_format_i18n( $s['total'] ),
			number_format_i18n( $s['sent'] ),
			number_format_i18n( $s['unchanged'] ),
			number_format_i18n( $s['skipped'] ),
			number_format_i18n( $s['failed'] )
		);
		if ( $s['running'] ) {
			/* translators: %s: counts */
			$text = sprintf( __( 'Sending: %s…', 'waypost-bridge' ), $counts );
		} elseif ( ! $s['started'] ) {
			$text = __( 'Not run yet.', 'waypost-bridge' );
		} elseif ( $s['finished'] ) {
			/* translators: %s: counts */
			$text = sprintf( __( 'Done: %s.', 'waypost-bridge' ), $counts );
		} else {
			/* translators: %s: counts */
			$text = sprintf( __( 'Stopped at %s. "Send existing records" resumes it.', 'waypost-bridge' ), $counts );
		}
		if ( $s['error'] ) {
			/* translators: %s: error */
			$text .= ' ' . sprintf( __( 'Last error: %s', 'waypost-bridge' ), $s['error'] );
		}
		return $text;
	}

	/**
	 * "booking #12".
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 */
	public static function record_label( $resource, $id ): string {
		$names = array(
			'trips'     => __( 'trip', 'waypost-bridge' ),
			'customers' => __( 'customer', 'waypost-bridge' ),
			'bookings'  => __( 'booking', 'waypost-bridge' ),
			'payments'  => __( 'payment', 'waypost-bridge' ),
			'enquiries' => __( 'enquiry', 'waypost-bridge' ),
			'reviews'   => __( 'review', 'waypost-bridge' ),
		);
		return ( isset( $names[ $resource ] ) ? $names[ $resource ] : $resource ) . ' #' . (int) $id;
	}
}
