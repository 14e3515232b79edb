<?php
/**
 * What the settings page's forms and script do. Every form is a POST to admin-post.php with its own nonce and the
 * page's capability; after it the browser is redirected back to the page (post/redirect/get), with the outcome kept
 * for the next page view in a short-lived, per-user transient. The page's script (assets/admin.js) drives a running
 * backfill through admin-ajax.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * The settings page's handlers.
 */
class Waypost_Bridge_Settings_Actions {

	/**
	 * Hooks: one admin-post handler per form (handle_<key> for each key of the page's ACTIONS), and the script's step.
	 */
	public static function register(): void {
		foreach ( Waypost_Bridge_Settings_Page::ACTIONS as $key => $action ) {
			add_action( 'admin_post_' . $action, array( __CLASS__, 'handle_' . $key ) );
		}
		add_action( 'wp_ajax_' . Waypost_Bridge_Settings_Page::AJAX_STEP, array( __CLASS__, 'ajax_backfill_step' ) );
	}

	/**
	 * Capability and nonce check for an action; dies with 403 otherwise.
	 *
	 * @param string $key Key in ACTIONS.
	 */
	private static function authorize( string $key ): void {
		if ( ! current_user_can( Waypost_Bridge_Settings_Page::capability() ) ) {
			wp_die( esc_html__(
				'Sorry, you are not allowed to manage these settings.',
				'waypost-bridge'
			), '', array( 'response' => 403 ) );
		}
		check_admin_referer( Waypost_Bridge_Settings_Page::ACTIONS[ $key ], '_waypost_nonce' );
	}

	/** Save the URL and token. */
	public static function handle_save_connection(): void {
		self::authorize( 'save_connection' );
		$messages = array();
		$type     = 'success';
		// phpcs:ignore WordPress.Security.ValidatedSanitizedInput.InputNotSanitized -- a secret, stored as typed.
		$token    = isset( $_POST['waypost_token'] ) ? trim( (string) wp_unslash( $_POST['waypost_token'] ) ) : '';
		if ( ! Waypost_Bridge_Connection::url_from_constant() && isset( $_POST['waypost_url'] ) ) {
			$url   = trim( sanitize_text_field( wp_unslash( $_POST['waypost_url'] ) ) );
			$saved = Waypost_Bridge_Connection::set_url( $url );
			if ( $saved ) {
				$messages[] = '' === $url
					? __( 'Waypost URL removed.', 'waypost-bridge' )
					: __( 'Waypost URL saved.', 'waypost-bridge' );
				if ( 'token_removed' === $saved && '' === $token ) {
					$messages[] = __( 'The saved host token was removed: it was for another server.', 'waypost-bridge' )
						. ' ' . __( 'A host token is never sent to a new address.', 'waypost-bridge' )
						. ' ' . __( 'Enter the host token again.', 'waypost-bridge' );
					$type       = 'warning';
				}
				if ( '' !== $url && Waypost_Bridge_Settings_Page::is_insecure_url( $url ) ) {
					$messages[] = __( 'It uses plain http:// to another machine.', 'waypost-bridge' ) . ' '
						. __( 'Use https:// so the token is not sent in clear text.', 'waypost-bridge' );
					$type       = 'warning';
				}
			} else {
				$messages[] = __(
					'The Waypost URL must be an absolute http:// or https:// address; it was not saved.',
					'waypost-bridge'
				);
				$type       = 'error';
			}
		}
		if ( ! Waypost_Bridge_Connection::token_from_constant() ) {
			if ( '' !== $token ) {
				if ( Waypost_Bridge_Connection::set_token( $token ) ) {
					$messages[] = __( 'Host token saved (encrypted).', 'waypost-bridge' );
				} else {
					$messages[] = __(
						'The host token could not be stored: this PHP has no AES-256-GCM (OpenSSL).',
						'waypost-bridge'
					) . ' ' . __( 'Define WAYPOST_HOST_TOKEN in wp-config.php instead.', 'waypost-bridge' );
					$type       = 'error';
				}
			} elseif ( ! empty( $_POST['waypost_token_clear'] ) ) {
				Waypost_Bridge_Connection::set_token( '' );
				$messages[] = __( 'Host token removed.', 'waypost-bridge' );
			}
		}
		Waypost_Bridge_Forwarder::mark_reachable(); // A new address or token deserves a fresh try.
		self::back( $type, implode( ' ', $messages ) );
	}

	/** Test the connection. */
	public static function handle_test_connection(): void {
		self::authorize( 'test_connection' );
		$result = Waypost_Bridge_Connection_Check::run();
		if ( ! empty( $result['ok'] ) ) {
			Waypost_Bridge_Forwarder::mark_reachable();
		}
		self::back( ! empty( $result['ok'] ) ? 'success' : 'error', (string) $result['message'] );
	}

	/** Retry the queue now. */
	public static function handle_retry_now(): void {
		self::authorize( 'retry_now' );
		$before = Waypost_Bridge_Queue_Stats::count();
		$result = Waypost_Bridge_Queue_Runner::retry_now();
		$error  = Waypost_Bridge_Queue_Stats::last_error();
		if ( 0 === $result['remaining'] ) {
			$sent = sprintf(
				/* translators: %s: number */
				_n( '%s queued change sent.', '%s queued changes sent.', max( 1, $before ), 'waypost-bridge' ),
				number_format_i18n( $before )
			);
			self::back( 'success', $sent . ' ' . __( 'The queue is empty.', 'waypost-bridge' ) );
		}
		$message = sprintf(
			/* translators: 1: sent, 2: remaining */
			__( 'Sent %1$s; %2$s still waiting.', 'waypost-bridge' ),
			number_format_i18n( $result['sent'] ),
			number_format_i18n( $result['remaining'] )
		);
		if ( $error ) {
			/* translators: %s: error */
			$message .= ' ' . sprintf( __( 'Last error: %s', 'waypost-bridge' ), $error['error'] );
		}
		self::back( $result['sent'] > 0 ? 'warning' : 'error', $message );
	}

	/** Start the backfill. */
	public static function handle_backfill_start(): void {
		self::authorize( 'backfill_start' );
		try {
			Waypost_Bridge_Backfill::start();
		} catch ( \Throwable $e ) {
			/* translators: %s: error */
			$failed = __( 'The backfill could not start: %s', 'waypost-bridge' );
			self::back( 'error', sprintf( $failed, $e->getMessage() ) );
		}
		$sending = Waypost_Bridge_Backfill::wp_cron_disabled()
			? __( 'Sending existing records while this page is open.', 'waypost-bridge' ) . ' '
				. __( 'WP-Cron is disabled on this site, so keep the page open until it is done.', 'waypost-bridge' )
			: __(
				'Sending existing records while this page is open; if you leave, WP-Cron continues in the background.',
				'waypost-bridge'
			) . ' ' . __( 'Progress is shown here.', 'waypost-bridge' );
		self::back( 'success', $sending );
	}

	/** Cancel the backfill. */
	public static function handle_backfill_cancel(): void {
		self::authorize( 'backfill_cancel' );
		Waypost_Bridge_Backfill::cancel();
		self::back( 'info', __( 'Backfill cancelled. "Send existing records" resumes it.', 'waypost-bridge' ) );
	}

	/**
	 * Open Webhooks & API: asks Waypost for a single-use sign-in link for this administrator and sends the browser
	 * there. Only a link on the configured Waypost's own host is followed.
	 */
	public static function handle_open_console(): void {
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
						self::back( 'error', self::foreign_host( $link_host, $base_host ) );
					}
				}
				nocache_headers();
				// phpcs:ignore WordPress.Security.SafeRedirect.wp_redirect_wp_redirect -- the Waypost host, checked above.
				wp_redirect( $link, 303 );
				exit;
			}
		}
		if ( 404 === $res['status'] ) {
			$old    = __(
				'This Waypost server cannot sign you in from WordPress yet (no /host/v1/sign-in-links).',
				'waypost-bridge'
			);
			$update = __( 'Update Waypost, or sign in to its console with your Waypost password.', 'waypost-bridge' );
			self::back( 'error', $old . ' ' . $update );
		}
		$why = null !== $res['error'] ? $res['error'] : sprintf( 'HTTP %d', $res['status'] );
		/* translators: %s: error */
		self::back( 'error', sprintf( __( 'Could not open Webhooks & API: %s', 'waypost-bridge' ), $why ) );
	}

	/**
	 * Why a sign-in link on another host than the connected one is not followed, and what to do.
	 *
	 * @param string $link_host The link's host.
	 * @param string $base_host The host of the Waypost URL.
	 * @return string
	 */
	private static function foreign_host( string $link_host, string $base_host ): string {
		/* translators: 1: host, 2: host */
		$other = __( 'Waypost answered with a sign-in link on %1$s, but it is connected as %2$s.', 'waypost-bridge' );
		/* translators: 1: a setting, 2: a filter */
		$fix = __(
			'Set %1$s on the Waypost server to its public address (or allow the host with the %2$s filter).',
			'waypost-bridge'
		);
		return sprintf( $other, $link_host, $base_host ) . ' '
			. sprintf( $fix, 'WAYPOST_BASE_URL', 'waypost_bridge_console_hosts' );
	}

	/**
	 * admin-ajax, from the open page while a backfill runs: sends batches for a few seconds (unless WP-Cron or the
	 * CLI is sending), then answers the progress and when to ask again.
	 */
	public static function ajax_backfill_step(): void {
		if ( ! current_user_can( Waypost_Bridge_Settings_Page::capability() ) ) {
			wp_send_json_error( null, 403 );
		}
		check_ajax_referer( Waypost_Bridge_Settings_Page::AJAX_STEP );
		$driven = Waypost_Bridge_Backfill::drive();
		$status = Waypost_Bridge_Settings_Page::backfill_status();
		wp_send_json_success(
			array_merge(
				$status,
				array(
					'text'       => Waypost_Bridge_Settings_Page::backfill_text( $status ),
					'next_in_ms' => (int) $driven['next_in_ms'],
				)
			)
		);
	}

	// ------------------------------------------------------------------------------------------------ notices

	/**
	 * Keeps a message for the next view of the page and redirects there.
	 *
	 * @param string $type    success|warning|error|info.
	 * @param string $message Message.
	 */
	private static function back( string $type, string $message ): void {
		set_transient(
			'waypost_bridge_notice_' . get_current_user_id(),
			array(
				'type'    => $type,
				'message' => $message,
			),
			5 * MINUTE_IN_SECONDS
		);
		wp_safe_redirect( Waypost_Bridge_Settings_Page::url( array( 'waypost-done' => '1' ) ) );
		exit;
	}

	/**
	 * The message left by the last action, once.
	 *
	 * @return array{type: string, message: string}|null
	 */
	public static function take_notice(): ?array {
		$key    = 'waypost_bridge_notice_' . get_current_user_id();
		$notice = get_transient( $key );
		if ( ! is_array( $notice ) || empty( $notice['message'] ) ) {
			return null;
		}
		delete_transient( $key );
		return $notice;
	}
}
