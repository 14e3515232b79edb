<?php
/**
 * Settings > Webhooks & API: prerequisites, the connection to Waypost, the retry queue, backfill, and the button that
 * signs the administrator into the Waypost console.
 *
 * Every action is a POST to admin-post.php with its own nonce and capability() (manage_options, on multisite
 * manage_network_options); after it the browser is redirected back to the page (post/redirect/get), with the outcome
 * kept for the next page view in a short-lived, per-user transient. The host token is never printed: only its last
 * four characters.
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

	const SLUG = 'waypost-bridge';

	/** Minimum versions. */
	const MIN_WP   = '5.0';
	const MIN_PHP  = '7.4';
	const MIN_WTE  = '6.7.0';
	const MIN_CART = '4.0';

	/** admin-post.php actions (each with a nonce of the same name). */
	const ACTIONS = array(
		'save_connection' => 'waypost_bridge_save_connection',
		'test_connection' => 'waypost_bridge_test_connection',
		'retry_now'       => 'waypost_bridge_retry_now',
		'backfill_start'  => 'waypost_bridge_backfill_start',
		'backfill_cancel' => 'waypost_bridge_backfill_cancel',
		'open_console'    => 'waypost_bridge_open_console',
	);

	const AJAX_STATUS = 'waypost_bridge_backfill_status';

	/**
	 * Hooks.
	 */
	public static function register() {
		add_action( 'admin_menu', array( __CLASS__, 'menu' ) );
		foreach ( self::ACTIONS as $key => $action ) {
			add_action( 'admin_post_' . $action, array( __CLASS__, 'handle_' . $key ) );
		}
		add_action( 'wp_ajax_' . self::AJAX_STATUS, array( __CLASS__, 'ajax_backfill_status' ) );
		add_filter( 'plugin_action_links_' . plugin_basename( WAYPOST_BRIDGE_FILE ), array( __CLASS__, 'action_links' ) );
	}

	/**
	 * Who may see and change these settings: manage_options; on a multisite network manage_network_options, since a
	 * site's administrator there is not trusted with the server (no plugin or wp-config.php editing) and these
	 * settings decide where the site's data and a host token are sent.
	 *
	 * @return string
	 */
	public static function capability() {
		return is_multisite() ? 'manage_network_options' : 'manage_options';
	}

	/** Settings > Webhooks & API. */
	public static function menu() {
		add_options_page(
			__( 'Webhooks & API', 'waypost-bridge' ),
			__( 'Webhooks & API', 'waypost-bridge' ),
			self::capability(),
			self::SLUG,
			array( __CLASS__, 'render' )
		);
	}

	/**
	 * "Settings" link on the Plugins screen.
	 *
	 * @param array $links Links.
	 * @return array
	 */
	public static function action_links( $links ) {
		array_unshift( $links, '<a href="' . esc_url( self::url() ) . '">' . esc_html__( 'Settings', 'waypost-bridge' ) . '</a>' );
		return $links;
	}

	/**
	 * The page's URL.
	 *
	 * @param array $args Extra query arguments.
	 */
	public static function url( array $args = array() ) {
		return add_query_arg( array_merge( array( 'page' => self::SLUG ), $args ), admin_url( 'options-general.php' ) );
	}

	// ------------------------------------------------------------------------------------------------ checks

	/**
	 * The prerequisites, each with a verdict and what to do.
	 *
	 * @return array[] array{id, label, ok: bool, value: string, help: string}
	 */
	public static function prerequisites() {
		global $wp_version;
		$checks = array();

		$checks[] = array(
			'id'    => 'wordpress',
			'label' => sprintf( /* translators: %s: version */ __( 'WordPress %s or later', 'waypost-bridge' ), self::MIN_WP ),
			'ok'    => version_compare( $wp_version, self::MIN_WP, '>=' ),
			'value' => $wp_version,
			'help'  => __( 'Update WordPress from Dashboard > Updates.', 'waypost-bridge' ),
		);
		$checks[] = array(
			'id'    => 'php',
			'label' => sprintf( /* translators: %s: version */ __( 'PHP %s or later', 'waypost-bridge' ), self::MIN_PHP ),
			'ok'    => version_compare( PHP_VERSION, self::MIN_PHP, '>=' ),
			'value' => PHP_VERSION,
			'help'  => __( 'Ask your host to switch this site to PHP 7.4 or later (8.1+ recommended).', 'waypost-bridge' ),
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
		$checks[] = array(
			'id'    => 'wte_active',
			'label' => __( 'WP Travel Engine installed and active', 'waypost-bridge' ),
			'ok'    => $active,
			'value' => $states[ $state ],
			'help'  => 'inactive' === $state
				? __( 'Activate WP Travel Engine on the Plugins screen.', 'waypost-bridge' )
				: __( 'Install and activate WP Travel Engine (Plugins > Add New > "WP Travel Engine"). Without it there is nothing to send.', 'waypost-bridge' ),
		);
		$version_ok = '' !== $version && version_compare( $version, self::MIN_WTE, '>=' );
		$checks[]   = array(
			'id'    => 'wte_version',
			'label' => sprintf( /* translators: %s: version */ __( 'WP Travel Engine %s or later', 'waypost-bridge' ), self::MIN_WTE ),
			'ok'    => $active && $version_ok,
			'value' => '' === $version ? __( 'unknown', 'waypost-bridge' ) : ( $active ? $version : sprintf( /* translators: %s: version */ __( '%s (recorded; the plugin is not active)', 'waypost-bridge' ), $version ) ),
			'help'  => $active || ! $version_ok
				? __( 'Update WP Travel Engine from Dashboard > Updates. Bookings made before 6.7.0 use the old calculation system; Waypost leaves them out of the API.', 'waypost-bridge' )
				: __( 'Activate WP Travel Engine first.', 'waypost-bridge' ),
		);

		$cart     = self::latest_cart_version();
		$cart_ok  = $active && $version_ok && ( null === $cart['version'] || version_compare( $cart['version'], self::MIN_CART, '>=' ) );
		$checks[] = array(
			'id'    => 'cart',
			'label' => sprintf( /* translators: %s: cart version */ __( 'New bookings use cart %s', 'waypost-bridge' ), self::MIN_CART ),
			'ok'    => $cart_ok,
			'value' => null === $cart['booking_id']
				? __( 'no bookings yet', 'waypost-bridge' )
				/* translators: 1: cart version, 2: booking id */
				: sprintf( __( 'cart %1$s (latest booking #%2$d)', 'waypost-bridge' ), $cart['version'], $cart['booking_id'] ),
			'help'  => ! $active || ! $version_ok
				? __( 'Needs WP Travel Engine 6.7.0 or later, active: it makes cart 4.0 bookings. Bookings made before (cart 3.0) are sent with data_complete: false and no line items.', 'waypost-bridge' )
				: __( 'The newest booking uses an older cart: bookings made before WP Travel Engine 6.7.0 (cart 3.0) are sent with data_complete: false and no line items. Convert them with WP Travel Engine\'s "Migrate to New Booking".', 'waypost-bridge' ),
		);
		return $checks;
	}

	/**
	 * Whether WP Travel Engine runs: 'active' (its code is loaded), 'inactive' (installed, not active), 'missing'
	 * (listed as active but its files are gone) or 'not_found'.
	 *
	 * @return string
	 */
	private static function wte_state() {
		if ( defined( 'WP_TRAVEL_ENGINE_VERSION' ) || defined( 'WP_TRAVEL_ENGINE_FILE_PATH' ) || class_exists( '\\WPTravelEngine\\Plugin', false ) ) {
			return 'active';
		}
		$listed = false;
		$active = (array) get_option( 'active_plugins', array() );
		if ( is_multisite() ) {
			$active = array_merge( $active, array_keys( (array) get_site_option( 'active_sitewide_plugins', array() ) ) );
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
	private static function wte_version() {
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
	private static function latest_cart_version() {
		global $wpdb;
		$id = $wpdb->get_var( "SELECT ID FROM {$wpdb->posts} WHERE post_type = 'booking' AND post_status NOT IN ('trash', 'auto-draft') ORDER BY ID DESC LIMIT 1" );
		if ( ! $id ) {
			return array(
				'booking_id' => null,
				'version'    => null,
			);
		}
		$cart = get_post_meta( (int) $id, 'cart_info', true );
		$ver  = is_array( $cart ) && isset( $cart['version'] ) && '' !== (string) $cart['version'] ? (string) $cart['version'] : '3.0';
		return array(
			'booking_id' => (int) $id,
			'version'    => $ver,
		);
	}

	/**
	 * Whether a URL sends the token in clear text over the network (http:// to a host other than this machine).
	 *
	 * @param string $url URL.
	 */
	public static function is_insecure_url( $url ) {
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
	public static function render() {
		if ( ! current_user_can( self::capability() ) ) {
			wp_die( esc_html__( 'Sorry, you are not allowed to manage these settings.', 'waypost-bridge' ), 403 );
		}
		$notice     = self::take_notice();
		$configured = Waypost_Bridge_Connection::is_configured();
		?>
		<div class="wrap waypost-bridge">
			<h1 class="wp-heading-inline"><?php esc_html_e( 'Webhooks & API', 'waypost-bridge' ); ?></h1>
			<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>" class="waypost-open-console">
				<?php self::action_fields( 'open_console' ); ?>
				<button type="submit" class="page-title-action" <?php disabled( ! $configured ); ?> title="<?php echo esc_attr( $configured ? __( 'Opens the Waypost console, signed in as you', 'waypost-bridge' ) : __( 'Connect to Waypost first (below)', 'waypost-bridge' ) ); ?>"><?php esc_html_e( 'Open Webhooks & API', 'waypost-bridge' ); ?></button>
			</form>
			<hr class="wp-header-end">
			<p class="description">
				<?php esc_html_e( 'Waypost sends webhooks for your bookings, customers, payments, enquiries and reviews, and serves them through a read-only REST API. This plugin sends your WP Travel Engine data to Waypost; webhooks and API keys are managed in the Waypost console ("Open Webhooks & API").', 'waypost-bridge' ); ?>
			</p>
			<?php if ( $notice ) : ?>
				<div id="waypost-notice" class="notice notice-<?php echo esc_attr( $notice['type'] ); ?> is-dismissible" role="status"><p><?php echo esc_html( $notice['message'] ); ?></p></div>
			<?php endif; ?>
			<style>
				.waypost-bridge .waypost-open-console { display: inline; }
				.waypost-bridge .waypost-card { background: #fff; border: 1px solid #c3c4c7; padding: 4px 20px 16px; margin: 16px 0; max-width: 960px; }
				.waypost-bridge .waypost-ok { color: #00a32a; font-weight: 600; }
				.waypost-bridge .waypost-bad { color: #d63638; font-weight: 600; }
				.waypost-bridge table.waypost-checks td, .waypost-bridge table.waypost-checks th { padding: 8px 10px; vertical-align: top; }
				.waypost-bridge table.waypost-kv th { width: 160px; font-weight: 600; }
				#waypost-prerequisites td:nth-child(2) { white-space: nowrap; }
				.waypost-bridge .waypost-open-console .page-title-action[disabled] { opacity: .5; cursor: not-allowed; }
				.waypost-bridge .waypost-inline { display: inline-block; margin: 0 8px 0 0; }
				.waypost-bridge progress { width: 320px; height: 16px; vertical-align: middle; }
				.waypost-bridge code.waypost-error { display: block; white-space: pre-wrap; word-break: break-word; padding: 6px 8px; }
			</style>
			<?php
			self::render_prerequisites();
			self::render_connection();
			self::render_queue( $configured );
			self::render_backfill( $configured );
			?>
		</div>
		<?php
	}

	private static function render_prerequisites() {
		$checks = self::prerequisites();
		$all_ok = ! in_array( false, wp_list_pluck( $checks, 'ok' ), true );
		?>
		<div class="waypost-card" id="waypost-prerequisites">
			<h2><?php esc_html_e( 'Prerequisites', 'waypost-bridge' ); ?></h2>
			<?php if ( ! $all_ok ) : ?>
				<p><?php esc_html_e( 'Fix the items in red; until then some data cannot be sent completely.', 'waypost-bridge' ); ?></p>
			<?php endif; ?>
			<table class="widefat striped waypost-checks">
				<thead><tr><th><?php esc_html_e( 'Requirement', 'waypost-bridge' ); ?></th><th><?php esc_html_e( 'Status', 'waypost-bridge' ); ?></th><th><?php esc_html_e( 'Found', 'waypost-bridge' ); ?></th><th><?php esc_html_e( 'What to do', 'waypost-bridge' ); ?></th></tr></thead>
				<tbody>
				<?php foreach ( $checks as $check ) : ?>
					<tr data-check="<?php echo esc_attr( $check['id'] ); ?>" data-ok="<?php echo $check['ok'] ? 'yes' : 'no'; ?>">
						<td><?php echo esc_html( $check['label'] ); ?></td>
						<td>
							<?php if ( $check['ok'] ) : ?>
								<span class="waypost-ok"><span class="dashicons dashicons-yes-alt" aria-hidden="true"></span> <?php esc_html_e( 'OK', 'waypost-bridge' ); ?></span>
							<?php else : ?>
								<span class="waypost-bad"><span class="dashicons dashicons-dismiss" aria-hidden="true"></span> <?php esc_html_e( 'Not met', 'waypost-bridge' ); ?></span>
							<?php endif; ?>
						</td>
						<td><?php echo esc_html( $check['value'] ); ?></td>
						<td><?php echo $check['ok'] ? '' : esc_html( $check['help'] ); ?></td>
					</tr>
				<?php endforeach; ?>
				</tbody>
			</table>
		</div>
		<?php
	}

	private static function render_connection() {
		$url_constant   = Waypost_Bridge_Connection::url_from_constant();
		$token_constant = Waypost_Bridge_Connection::token_from_constant();
		$url            = Waypost_Bridge_Connection::get_url();
		$hint           = Waypost_Bridge_Connection::token_hint();
		$problem        = Waypost_Bridge_Connection::token_problem();
		$read_only      = $url_constant && $token_constant;
		?>
		<div class="waypost-card" id="waypost-connection">
			<h2><?php esc_html_e( 'Connection', 'waypost-bridge' ); ?></h2>
			<p><?php esc_html_e( 'The address of your Waypost server and its host token (printed once when Waypost first started; "npx waypost host-token --rotate" on the server makes a new one).', 'waypost-bridge' ); ?></p>
			<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>">
				<?php self::action_fields( 'save_connection' ); ?>
				<table class="form-table" role="presentation">
					<tr>
						<th scope="row"><label for="waypost-url"><?php esc_html_e( 'Waypost URL', 'waypost-bridge' ); ?></label></th>
						<td>
							<input type="url" id="waypost-url" name="waypost_url" class="regular-text code" value="<?php echo esc_attr( $url ); ?>" placeholder="https://waypost.example.com" <?php echo $url_constant ? 'readonly' : ''; ?>>
							<?php if ( $url_constant ) : ?>
								<p class="description"><?php esc_html_e( 'Set in wp-config.php (WAYPOST_URL).', 'waypost-bridge' ); ?></p>
							<?php elseif ( ! $token_constant ) : ?>
								<p class="description"><?php esc_html_e( 'Saving an address on another server (scheme, host or port) removes the saved host token: enter it again with the new address.', 'waypost-bridge' ); ?></p>
							<?php endif; ?>
							<?php if ( '' !== $url && self::is_insecure_url( $url ) ) : ?>
								<p class="waypost-bad" id="waypost-http-warning"><?php esc_html_e( 'Warning: this URL uses plain http:// to another machine, so the host token and your customers\' data travel unencrypted. Use https://.', 'waypost-bridge' ); ?></p>
							<?php endif; ?>
						</td>
					</tr>
					<tr>
						<th scope="row"><label for="waypost-token"><?php esc_html_e( 'Host token', 'waypost-bridge' ); ?></label></th>
						<td>
							<?php if ( $token_constant ) : ?>
								<input type="text" id="waypost-token" class="regular-text code" value="<?php echo esc_attr( $hint ); ?>" readonly>
								<p class="description"><?php esc_html_e( 'Set in wp-config.php (WAYPOST_HOST_TOKEN).', 'waypost-bridge' ); ?></p>
							<?php else : ?>
								<input type="password" id="waypost-token" name="waypost_token" class="regular-text code" value="" autocomplete="new-password" placeholder="<?php echo esc_attr( '' !== $hint ? $hint : __( 'paste the host token', 'waypost-bridge' ) ); ?>">
								<p class="description">
									<?php
									echo '' !== $hint
										/* translators: %s: the token's last characters */
										? esc_html( sprintf( __( 'A token ending in %s is saved (encrypted). Leave empty to keep it.', 'waypost-bridge' ), substr( $hint, -4 ) ) )
										: esc_html__( 'Stored encrypted; it is never shown again.', 'waypost-bridge' );
									?>
								</p>
								<?php if ( '' !== $hint ) : ?>
									<label><input type="checkbox" name="waypost_token_clear" value="1"> <?php esc_html_e( 'Remove the saved token', 'waypost-bridge' ); ?></label>
								<?php endif; ?>
							<?php endif; ?>
							<?php if ( $problem ) : ?>
								<p class="waypost-bad"><?php echo esc_html( $problem ); ?></p>
							<?php endif; ?>
						</td>
					</tr>
				</table>
				<?php if ( ! $read_only ) : ?>
					<?php submit_button( __( 'Save connection', 'waypost-bridge' ), 'primary', 'waypost-save', false ); ?>
				<?php endif; ?>
			</form>
			<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>" style="margin-top: 12px">
				<?php self::action_fields( 'test_connection' ); ?>
				<?php submit_button( __( 'Test connection', 'waypost-bridge' ), 'secondary', 'waypost-test', false, Waypost_Bridge_Connection::is_configured() ? array() : array( 'disabled' => 'disabled' ) ); ?>
			</form>
		</div>
		<?php
	}

	/**
	 * The retry queue.
	 *
	 * @param bool $configured Connection set.
	 */
	private static function render_queue( $configured ) {
		$count  = Waypost_Bridge_Queue::count();
		$parked = $count ? Waypost_Bridge_Queue::parked_count() : 0;
		$oldest = $count ? Waypost_Bridge_Queue::oldest() : null;
		$error  = $count ? Waypost_Bridge_Queue::last_error() : null;
		$next   = $count ? Waypost_Bridge_Queue::next_due() : null;
		?>
		<div class="waypost-card" id="waypost-queue">
			<h2><?php esc_html_e( 'Retry queue', 'waypost-bridge' ); ?></h2>
			<p><?php esc_html_e( 'Changes that could not reach Waypost at once wait here and are retried automatically (after 1 minute, then doubling up to every hour). What is sent is always the record\'s latest state.', 'waypost-bridge' ); ?></p>
			<table class="widefat striped waypost-checks waypost-kv">
				<tbody>
					<tr><th scope="row"><?php esc_html_e( 'Waiting', 'waypost-bridge' ); ?></th><td id="waypost-queue-count"><?php echo esc_html( number_format_i18n( $count ) ); ?>
					<?php
					if ( $parked ) {
						/* translators: %s: number */
						echo ' ' . esc_html( sprintf( _n( '(%s refused by Waypost: retried only with "Retry now" or when the record changes)', '(%s refused by Waypost: retried only with "Retry now" or when the records change)', $parked, 'waypost-bridge' ), number_format_i18n( $parked ) ) );
					}
					?>
					</td></tr>
					<tr><th scope="row"><?php esc_html_e( 'Oldest', 'waypost-bridge' ); ?></th><td id="waypost-queue-oldest">
					<?php
					echo $oldest
						/* translators: 1: time span, 2: record */
						? esc_html( sprintf( __( '%1$s ago (%2$s)', 'waypost-bridge' ), human_time_diff( time() - $oldest['age'], time() ), self::record_label( $oldest['resource'], $oldest['record_id'] ) ) )
						: '&mdash;';
					?>
					</td></tr>
					<tr><th scope="row"><?php esc_html_e( 'Next retry', 'waypost-bridge' ); ?></th><td>
					<?php
					echo null !== $next
						? esc_html( $next <= time() ? __( 'due now (when WP-Cron next runs)', 'waypost-bridge' ) : sprintf( /* translators: %s: time span */ __( 'in %s', 'waypost-bridge' ), human_time_diff( time(), $next ) ) )
						: '&mdash;';
					?>
					</td></tr>
					<tr><th scope="row"><?php esc_html_e( 'Last error', 'waypost-bridge' ); ?></th><td id="waypost-queue-error">
					<?php if ( $error ) : ?>
						<code class="waypost-error"><?php echo esc_html( $error['error'] ); ?></code>
						<?php
						/* translators: 1: time span, 2: attempts */
						echo esc_html( sprintf( __( '%1$s ago, after %2$d attempt(s)', 'waypost-bridge' ), human_time_diff( (int) strtotime( $error['at'] . ' UTC' ), time() ), $error['attempts'] ) );
						?>
					<?php else : ?>
						&mdash;
					<?php endif; ?>
					</td></tr>
				</tbody>
			</table>
			<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>" style="margin-top: 12px">
				<?php self::action_fields( 'retry_now' ); ?>
				<?php submit_button( __( 'Retry now', 'waypost-bridge' ), 'secondary', 'waypost-retry', false, ( $count && $configured ) ? array() : array( 'disabled' => 'disabled' ) ); ?>
			</form>
		</div>
		<?php
	}

	/**
	 * Backfill: send the records that existed before the bridge was installed.
	 *
	 * @param bool $configured Connection set.
	 */
	private static function render_backfill( $configured ) {
		$status = self::backfill_status();
		?>
		<div class="waypost-card" id="waypost-backfill">
			<h2><?php esc_html_e( 'Existing records', 'waypost-bridge' ); ?></h2>
			<p><?php esc_html_e( 'Send the trips, customers, bookings, payments, enquiries and reviews that already exist to Waypost (in batches, in the background; it can be interrupted and resumed). No webhooks fire for them twice: a record Waypost already has unchanged is skipped. Also available as "wp waypost backfill".', 'waypost-bridge' ); ?></p>
			<?php if ( null === $status ) : ?>
				<p class="waypost-bad"><?php esc_html_e( 'Backfill is not available in this version of the plugin.', 'waypost-bridge' ); ?></p>
			<?php else : ?>
				<p id="waypost-backfill-status" data-running="<?php echo $status['running'] ? '1' : '0'; ?>">
					<progress id="waypost-backfill-progress" max="<?php echo esc_attr( max( 1, $status['total'] ) ); ?>" value="<?php echo esc_attr( $status['done'] ); ?>"></progress>
					<span id="waypost-backfill-text"><?php echo esc_html( self::backfill_text( $status ) ); ?></span>
				</p>
				<?php if ( $status['running'] ) : ?>
					<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>">
						<?php self::action_fields( 'backfill_cancel' ); ?>
						<?php submit_button( __( 'Cancel', 'waypost-bridge' ), 'secondary', 'waypost-backfill-cancel', false ); ?>
					</form>
				<?php else : ?>
					<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>">
						<?php self::action_fields( 'backfill_start' ); ?>
						<?php submit_button( __( 'Send existing records', 'waypost-bridge' ), 'secondary', 'waypost-backfill-start', false, $configured ? array() : array( 'disabled' => 'disabled' ) ); ?>
					</form>
				<?php endif; ?>
				<script>
				( function () {
					var box = document.getElementById( 'waypost-backfill-status' );
					if ( ! box || box.getAttribute( 'data-running' ) !== '1' || ! window.fetch ) { return; }
					var url = <?php echo wp_json_encode( add_query_arg( array( 'action' => self::AJAX_STATUS, '_ajax_nonce' => wp_create_nonce( self::AJAX_STATUS ) ), admin_url( 'admin-ajax.php' ) ) ); ?>;
					var poll = function () {
						fetch( url, { credentials: 'same-origin' } ).then( function ( r ) { return r.json(); } ).then( function ( res ) {
							if ( ! res || ! res.success ) { return; }
							var s = res.data, bar = document.getElementById( 'waypost-backfill-progress' );
							bar.max = Math.max( 1, s.total ); bar.value = s.done;
							document.getElementById( 'waypost-backfill-text' ).textContent = s.text;
							if ( s.running ) { setTimeout( poll, 2000 ); } else { window.location.reload(); }
						} ).catch( function () { setTimeout( poll, 5000 ); } );
					};
					setTimeout( poll, 2000 );
				}() );
				</script>
			<?php endif; ?>
		</div>
		<?php
	}

	/**
	 * Backfill status for the page (from Waypost_Bridge_Backfill::status()), or null without a backfill.
	 *
	 * @return array{running: bool, started: bool, finished: bool, done: int, sent: int, failed: int, skipped: int, total: int, error: ?string}|null
	 */
	public static function backfill_status() {
		if ( ! class_exists( 'Waypost_Bridge_Backfill' ) || ! method_exists( 'Waypost_Bridge_Backfill', 'status' ) ) {
			return null;
		}
		try {
			$raw = (array) Waypost_Bridge_Backfill::status();
		} catch ( \Throwable $e ) {
			$raw = array( 'last_error' => $e->getMessage() );
		}
		$int      = static function ( $key ) use ( $raw ) {
			return isset( $raw[ $key ] ) && is_numeric( $raw[ $key ] ) ? (int) $raw[ $key ] : 0;
		};
		$total    = $int( 'total' );
		$finished = ! empty( $raw['done'] );
		$error    = isset( $raw['last_error'] ) && is_string( $raw['last_error'] ) && '' !== $raw['last_error'] ? $raw['last_error'] : null;
		return array(
			'running'  => ! empty( $raw['running'] ),
			'started'  => ! empty( $raw['started_at'] ) || $total > 0,
			'finished' => $finished,
			'done'     => $finished ? $total : min( $total, $int( 'position' ) ),
			'sent'     => $int( 'sent' ),
			'failed'   => $int( 'failed' ),
			'skipped'  => $int( 'skipped' ),
			'total'    => $total,
			'error'    => $error,
		);
	}

	/**
	 * One line about the backfill.
	 *
	 * @param array $s Status from backfill_status().
	 */
	private static function backfill_text( array $s ) {
		$counts = sprintf(
			/* translators: 1: done, 2: total, 3: sent, 4: unchanged, 5: failed */
			__( '%1$s of %2$s records (%3$s sent, %4$s unchanged or skipped, %5$s failed)', 'waypost-bridge' ),
			number_format_i18n( $s['done'] ),
			number_format_i18n( $s['total'] ),
			number_format_i18n( $s['sent'] ),
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
			$text .= ' ' . sprintf( /* translators: %s: error */ __( 'Last error: %s', 'waypost-bridge' ), $s['error'] );
		}
		return $text;
	}

	/**
	 * "booking #12".
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 */
	private static function record_label( $resource, $id ) {
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

	/**
	 * Hidden fields of an admin-post form: the action and its nonce.
	 *
	 * @param string $key Key in ACTIONS.
	 */
	private static function action_fields( $key ) {
		$action = self::ACTIONS[ $key ];
		echo '<input type="hidden" name="action" value="' . esc_attr( $action ) . '">';
		wp_nonce_field( $action, '_waypost_nonce', false );
	}

	// ------------------------------------------------------------------------------------------------ actions

	/**
	 * Capability and nonce check for an action; dies with 403 otherwise.
	 *
	 * @param string $key Key in ACTIONS.
	 */
	private static function authorize( $key ) {
		if ( ! current_user_can( self::capability() ) ) {
			wp_die( esc_html__( 'Sorry, you are not allowed to manage these settings.', 'waypost-bridge' ), '', array( 'response' => 403 ) );
		}
		check_admin_referer( self::ACTIONS[ $key ], '_waypost_nonce' );
	}

	/** Save the URL and token. */
	public static function handle_save_connection() {
		self::authorize( 'save_connection' );
		$messages = array();
		$type     = 'success';
		$token    = isset( $_POST['waypost_token'] ) ? trim( (string) wp_unslash( $_POST['waypost_token'] ) ) : ''; // phpcs:ignore WordPress.Security.ValidatedSanitizedInput.InputNotSanitized -- a secret, stored encrypted as typed.
		if ( ! Waypost_Bridge_Connection::url_from_constant() && isset( $_POST['waypost_url'] ) ) {
			$url   = trim( sanitize_text_field( wp_unslash( $_POST['waypost_url'] ) ) );
			$saved = Waypost_Bridge_Connection::set_url( $url );
			if ( $saved ) {
				$messages[] = '' === $url ? __( 'Waypost URL removed.', 'waypost-bridge' ) : __( 'Waypost URL saved.', 'waypost-bridge' );
				if ( 'token_removed' === $saved && '' === $token ) {
					$messages[] = __( 'The saved host token was removed: it was given for another server, and is never sent to a new address. Enter the host token again.', 'waypost-bridge' );
					$type       = 'warning';
				}
				if ( '' !== $url && self::is_insecure_url( $url ) ) {
					$messages[] = __( 'It uses plain http:// to another machine: use https:// so the token is not sent in clear text.', 'waypost-bridge' );
					$type       = 'warning';
				}
			} else {
				$messages[] = __( 'The Waypost URL must be an absolute http:// or https:// address; it was not saved.', 'waypost-bridge' );
				$type       = 'error';
			}
		}
		if ( ! Waypost_Bridge_Connection::token_from_constant() ) {
			if ( '' !== $token ) {
				if ( Waypost_Bridge_Connection::set_token( $token ) ) {
					$messages[] = __( 'Host token saved (encrypted).', 'waypost-bridge' );
				} else {
					$messages[] = __( 'The host token could not be stored: this PHP has no AES-256-GCM (OpenSSL). Define WAYPOST_HOST_TOKEN in wp-config.php instead.', 'waypost-bridge' );
					$type       = 'error';
				}
			} elseif ( ! empty( $_POST['waypost_token_clear'] ) ) {
				Waypost_Bridge_Connection::set_token( '' );
				$messages[] = __( 'Host token removed.', 'waypost-bridge' );
			}
		}
		if ( class_exists( 'Waypost_Bridge_Forwarder' ) ) {
			Waypost_Bridge_Forwarder::mark_reachable(); // A new address or token deserves a fresh try.
		}
		self::back( $type, implode( ' ', $messages ) );
	}

	/** Test the connection. */
	public static function handle_test_connection() {
		self::authorize( 'test_connection' );
		$result = Waypost_Bridge_Client::test_connection();
		if ( ! empty( $result['ok'] ) && class_exists( 'Waypost_Bridge_Forwarder' ) ) {
			Waypost_Bridge_Forwarder::mark_reachable();
		}
		self::back( ! empty( $result['ok'] ) ? 'success' : 'error', (string) $result['message'] );
	}

	/** Retry the queue now. */
	public static function handle_retry_now() {
		self::authorize( 'retry_now' );
		$before = Waypost_Bridge_Queue::count();
		$result = Waypost_Bridge_Queue::retry_now();
		$error  = Waypost_Bridge_Queue::last_error();
		if ( 0 === $result['remaining'] ) {
			/* translators: %s: number */
			self::back( 'success', sprintf( _n( '%s queued change sent. The queue is empty.', '%s queued changes sent. The queue is empty.', max( 1, $before ), 'waypost-bridge' ), number_format_i18n( $before ) ) );
		}
		/* translators: 1: sent, 2: remaining */
		$message = sprintf( __( 'Sent %1$s; %2$s still waiting.', 'waypost-bridge' ), number_format_i18n( $result['sent'] ), number_format_i18n( $result['remaining'] ) );
		if ( $error ) {
			$message .= ' ' . sprintf( /* translators: %s: error */ __( 'Last error: %s', 'waypost-bridge' ), $error['error'] );
		}
		self::back( $result['sent'] > 0 ? 'warning' : 'error', $message );
	}

	/** Start the backfill. */
	public static function handle_backfill_start() {
		self::authorize( 'backfill_start' );
		if ( ! class_exists( 'Waypost_Bridge_Backfill' ) ) {
			self::back( 'error', __( 'Backfill is not available in this version of the plugin.', 'waypost-bridge' ) );
		}
		try {
			Waypost_Bridge_Backfill::start();
		} catch ( \Throwable $e ) {
			self::back( 'error', sprintf( /* translators: %s: error */ __( 'The backfill could not start: %s', 'waypost-bridge' ), $e->getMessage() ) );
		}
		self::back( 'success', __( 'Sending existing records in the background. You can leave this page; progress is shown here.', 'waypost-bridge' ) );
	}

	/** Cancel the backfill. */
	public static function handle_backfill_cancel() {
		self::authorize( 'backfill_cancel' );
		if ( class_exists( 'Waypost_Bridge_Backfill' ) ) {
			Waypost_Bridge_Backfill::cancel();
		}
		self::back( 'info', __( 'Backfill cancelled. "Send existing records" resumes it.', 'waypost-bridge' ) );
	}

	/**
	 * Open Webhooks & API: asks Waypost for a single-use sign-in link for this administrator and sends the browser
	 * there. Only a link on the configured Waypost's own host is followed.
	 */
	public static function handle_open_console() {
		self::authorize( 'open_console' );
		$user = wp_get_current_user();
		$name = '' !== trim( (string) $user->display_name ) ? $user->display_name : $user->user_login;
		$res  = Waypost_Bridge_Client::sign_in_link( (string) $user->user_email, (string) $name, (int) $user->ID );
		$link = isset( $res['body']['url'] ) && is_string( $res['body']['url'] ) ? $res['body']['url'] : '';
		if ( $res['status'] >= 200 && $res['status'] < 300 && '' !== $link ) {
			$link_host = strtolower( (string) wp_parse_url( $link, PHP_URL_HOST ) );
			$base_host = strtolower( (string) wp_parse_url( Waypost_Bridge_Connection::get_url(), PHP_URL_HOST ) );
			$scheme    = strtolower( (string) wp_parse_url( $link, PHP_URL_SCHEME ) );
			if ( in_array( $scheme, array( 'http', 'https' ), true ) && '' !== $link_host ) {
				if ( $link_host !== $base_host ) {
					// Waypost builds links from its public base URL, which may differ from the address WordPress uses
					// (a private address, a reverse proxy): allow it explicitly, and say so if it is not allowed.
					$allowed = (array) apply_filters( 'waypost_bridge_console_hosts', array( $base_host ) );
					if ( ! in_array( $link_host, array_map( 'strtolower', $allowed ), true ) ) {
						/* translators: 1: host, 2: host */
						self::back( 'error', sprintf( __( 'Waypost answered with a sign-in link on %1$s, but it is connected as %2$s. Set WAYPOST_BASE_URL on the Waypost server to its public address (or allow the host with the waypost_bridge_console_hosts filter).', 'waypost-bridge' ), $link_host, $base_host ) );
					}
				}
				nocache_headers();
				wp_redirect( $link, 303 ); // phpcs:ignore WordPress.Security.SafeRedirect.wp_redirect_wp_redirect -- the configured Waypost host, checked above.
				exit;
			}
		}
		if ( 404 === $res['status'] ) {
			self::back( 'error', __( 'This Waypost server cannot sign you in from WordPress yet (no /host/v1/sign-in-links). Update Waypost, or open its console and sign in with your Waypost password.', 'waypost-bridge' ) );
		}
		$why = null !== $res['error'] ? $res['error'] : sprintf( 'HTTP %d', $res['status'] );
		/* translators: %s: error */
		self::back( 'error', sprintf( __( 'Could not open Webhooks & API: %s', 'waypost-bridge' ), $why ) );
	}

	/** admin-ajax: backfill progress for the page's poller. */
	public static function ajax_backfill_status() {
		if ( ! current_user_can( self::capability() ) ) {
			wp_send_json_error( null, 403 );
		}
		check_ajax_referer( self::AJAX_STATUS );
		$status = self::backfill_status();
		if ( null === $status ) {
			wp_send_json_error( null, 404 );
		}
		$status['text'] = self::backfill_text( $status );
		wp_send_json_success( $status );
	}

	// ------------------------------------------------------------------------------------------------ notices

	/**
	 * Keeps a message for the next view of the page and redirects there.
	 *
	 * @param string $type    success|warning|error|info.
	 * @param string $message Message.
	 */
	private static function back( $type, $message ) {
		set_transient(
			'waypost_bridge_notice_' . get_current_user_id(),
			array(
				'type'    => $type,
				'message' => $message,
			),
			5 * MINUTE_IN_SECONDS
		);
		wp_safe_redirect( self::url( array( 'waypost-done' => '1' ) ) );
		exit;
	}

	/**
	 * The message left by the last action, once.
	 *
	 * @return array{type: string, message: string}|null
	 */
	private static function take_notice() {
		$key    = 'waypost_bridge_notice_' . get_current_user_id();
		$notice = get_transient( $key );
		if ( ! is_array( $notice ) || empty( $notice['message'] ) ) {
			return null;
		}
		delete_transient( $key );
		return $notice;
	}
}
