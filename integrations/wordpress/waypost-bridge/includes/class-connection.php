<?php
/**
 * Where Waypost is and how to authenticate: the constants WAYPOST_URL and WAYPOST_HOST_TOKEN in wp-config.php win
 * over the settings page's options. A token typed on the page is stored encrypted (AES-256-GCM, key derived from the
 * site's AUTH salt) and never shown again in full.
 *
 * The token is bound to the server it was given for: a stored token is used only while the URL's origin (scheme, host,
 * port) is the one it was saved with, and saving a URL on another origin deletes it; WAYPOST_HOST_TOKEN is used only
 * together with WAYPOST_URL. Otherwise anyone who may change the URL could send the token to a host of their choice.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Connection settings.
 */
class Waypost_Bridge_Connection {

	public const OPTION_URL   = 'waypost_bridge_url';
	public const OPTION_TOKEN = 'waypost_bridge_token';

	/** The origin (scheme://host:port) of the URL the stored token was saved with. */
	public const OPTION_TOKEN_ORIGIN = 'waypost_bridge_token_origin';

	/** Prefix of a stored token: format version and cipher, so a later change can still read old values. */
	public const TOKEN_PREFIX = 'wpb1:';

	/**
	 * Waypost's base URL without a trailing slash ('' when not configured).
	 *
	 * @return string
	 */
	public static function get_url(): string {
		$url = self::url_from_constant() ? (string) WAYPOST_URL : (string) get_option( self::OPTION_URL, '' );
		return untrailingslashit( trim( $url ) );
	}

	/**
	 * Saves the URL typed on the settings page (ignored for requests while WAYPOST_URL is defined).
	 *
	 * A URL on another origin than the stored token's deletes the token (see the file comment).
	 *
	 * @param string $url Absolute http(s) URL.
	 * @return bool|string false when the URL is not a valid http(s) URL; 'token_removed' when it was saved and the
	 *                     stored token was deleted with it; true otherwise.
	 */
	public static function set_url( $url ) {
		$url = untrailingslashit( trim( (string) $url ) );
		if ( '' !== $url && ! preg_match( '#^https?://[^/\s?\#]+(/\S*)?$#i', $url ) ) {
			return false;
		}
		$url    = esc_url_raw( $url, array( 'http', 'https' ) );
		$stored = (string) get_option( self::OPTION_TOKEN, '' );
		// Before the URL changes: an old token binds to the old URL.
		$bound  = '' !== $stored ? self::bound_origin() : '';
		update_option( self::OPTION_URL, $url, false );
		if ( '' !== $stored && ! self::url_from_constant() && $bound !== self::origin( $url ) ) {
			self::set_token( '' );
			return 'token_removed';
		}
		return true;
	}

	/**
	 * The host token in plain text ('' when not configured or when the stored value can no longer be decrypted,
	 * e.g. after the site's salts changed; see token_problem()).
	 *
	 * @return string
	 */
	public static function get_token(): string {
		if ( self::token_from_constant() ) {
			return self::url_from_constant() ? trim( (string) WAYPOST_HOST_TOKEN ) : '';
		}
		$stored = (string) get_option( self::OPTION_TOKEN, '' );
		if ( '' === $stored || self::bound_origin() !== self::origin( self::get_url() ) ) {
			return '';
		}
		$plain = self::decrypt( $stored );
		return null === $plain ? '' : $plain;
	}

	/**
	 * Stores a token typed on the settings page, encrypted and bound to the current URL's origin. An empty value
	 * removes it.
	 *
	 * @param string $plain The host token.
	 * @return bool false when no cipher is available (the token is then not stored).
	 */
	public static function set_token( $plain ): bool {
		$plain = trim( (string) $plain );
		if ( '' === $plain ) {
			delete_option( self::OPTION_TOKEN );
			delete_option( self::OPTION_TOKEN_ORIGIN );
			return true;
		}
		$sealed = self::encrypt( $plain );
		if ( null === $sealed ) {
			return false;
		}
		update_option( self::OPTION_TOKEN, $sealed, false );
		update_option( self::OPTION_TOKEN_ORIGIN, self::origin( self::get_url() ), false );
		return true;
	}

	/**
	 * The origin a stored token belongs to. A token saved by an earlier version has none recorded: it belongs to the
	 * URL saved with it then, so it is bound to the current one once.
	 *
	 * @return string
	 */
	private static function bound_origin(): string {
		$origin = get_option( self::OPTION_TOKEN_ORIGIN, null );
		if ( null === $origin && '' !== (string) get_option( self::OPTION_TOKEN, '' ) ) {
			$origin = self::origin( self::get_url() );
			update_option( self::OPTION_TOKEN_ORIGIN, $origin, false );
		}
		return (string) $origin;
	}

	/**
	 * "scheme://host:port" of a URL, lower case, with the default port made explicit ('' for no URL).
	 *
	 * @param string $url URL.
	 * @return string
	 */
	public static function origin( $url ): string {
		$parts = wp_parse_url( (string) $url );
		if ( ! is_array( $parts ) || empty( $parts['scheme'] ) || empty( $parts['host'] ) ) {
			return '';
		}
		$scheme = strtolower( $parts['scheme'] );
		$port   = isset( $parts['port'] ) ? (int) $parts['port'] : ( 'https' === $scheme ? 443 : 80 );
		return $scheme . '://' . strtolower( $parts['host'] ) . ':' . $port;
	}

	/**
	 * What the page may show of the token: its last four characters ('' when there is none).
	 *
	 * @return string e.g. "••••••••3f9a"
	 */
	public static function token_hint(): string {
		$token = self::get_token();
		if ( '' === $token ) {
			return '';
		}
		$tail = strlen( $token ) > 8 ? substr( $token, -4 ) : '';
		return str_repeat( "\u{2022}", 8 ) . $tail;
	}

	/**
	 * Why a stored token cannot be used, or null when it can (or when none is stored).
	 *
	 * @return string|null
	 */
	public static function token_problem(): ?string {
		if ( self::token_from_constant() ) {
			if ( self::url_from_constant() ) {
				return null;
			}
			/* translators: 1: WAYPOST_HOST_TOKEN, 2: WAYPOST_URL */
			$unused = __(
				'%1$s is defined in wp-config.php, but %2$s is not, so the token is not used: define %2$s beside it.',
				'waypost-bridge'
			);
			return sprintf( $unused, 'WAYPOST_HOST_TOKEN', 'WAYPOST_URL' ) . ' '
				. __( 'The token is only sent to an address set in wp-config.php.', 'waypost-bridge' );
		}
		$stored = (string) get_option( self::OPTION_TOKEN, '' );
		if ( '' === $stored ) {
			return null;
		}
		if ( self::bound_origin() !== self::origin( self::get_url() ) ) {
			/* translators: %s: origin such as https://waypost.example.com:443 */
			$given = __(
				'The saved host token was given for %s, not for the current Waypost URL, so it is not sent there.',
				'waypost-bridge'
			);
			return sprintf( $given, self::bound_origin() ) . ' ' . __( 'Enter the token again.', 'waypost-bridge' );
		}
		if ( null === self::decrypt( $stored ) ) {
			return __(
				'The saved host token can no longer be read (the site\'s security keys changed?). Enter it again.',
				'waypost-bridge'
			);
		}
		return null;
	}

	/** @return bool */
	public static function url_from_constant(): bool {
		return defined( 'WAYPOST_URL' ) && '' !== trim( (string) WAYPOST_URL );
	}

	/** @return bool */
	public static function token_from_constant(): bool {
		return defined( 'WAYPOST_HOST_TOKEN' ) && '' !== trim( (string) WAYPOST_HOST_TOKEN );
	}

	/** @return bool true when both a URL and a usable token are set. */
	public static function is_configured(): bool {
		return '' !== self::get_url() && '' !== self::get_token();
	}

	/**
	 * 32-byte key for the token, derived from the AUTH salt (never stored).
	 *
	 * @return string raw bytes
	 */
	private static function key(): string {
		return hash_hmac( 'sha256', 'waypost-bridge host token', wp_salt( 'auth' ), true );
	}

	/**
	 * @param string $plain Plain text.
	 * @return string|null "wpb1:" + base64(iv . tag . ciphertext), or null without a cipher.
	 */
	private static function encrypt( $plain ): ?string {
		$gcm = function_exists( 'openssl_encrypt' ) && in_array( 'aes-256-gcm', openssl_get_cipher_methods(), true );
		if ( ! $gcm ) {
			return null;
		}
		$iv     = random_bytes( 12 );
		$tag    = '';
		$cipher = openssl_encrypt( $plain, 'aes-256-gcm', self::key(), OPENSSL_RAW_DATA, $iv, $tag, 'waypost', 16 );
		if ( false === $cipher ) {
			return null;
		}
		// phpcs:ignore WordPress.PHP.DiscouragedPHPFunctions.obfuscation_base64_encode
		return self::TOKEN_PREFIX . base64_encode( $iv . $tag . $cipher );
	}

	/**
	 * @param string $sealed A value made by encrypt().
	 * @return string|null The plain text, or null when it cannot be decrypted.
	 */
	private static function decrypt( $sealed ): ?string {
		if ( 0 !== strpos( $sealed, self::TOKEN_PREFIX ) || ! function_exists( 'openssl_decrypt' ) ) {
			return null;
		}
		// phpcs:ignore WordPress.PHP.DiscouragedPHPFunctions.obfuscation_base64_decode
		$raw = base64_decode( substr( $sealed, strlen( self::TOKEN_PREFIX ) ), true );
		if ( false === $raw || strlen( $raw ) < 29 ) {
			return null;
		}
		$iv     = substr( $raw, 0, 12 );
		$tag    = substr( $raw, 12, 16 );
		$cipher = substr( $raw, 28 );
		$plain  = openssl_decrypt( $cipher, 'aes-256-gcm', self::key(), OPENSSL_RAW_DATA, $iv, $tag, 'waypost' );
		return false === $plain ? null : $plain;
	}

	/**
	 * Who is calling, for the console's Connect WordPress page: `WaypostBridge/<v>; WordPress/<v>` (and
	 * `; WPTravelEngine/<v>` when the booking product is loaded), this site's address and how many changes wait in
	 * the retry queue.
	 */
	public static function identity_headers(): array {
		$agent = 'WaypostBridge/' . ( defined( 'WAYPOST_BRIDGE_VERSION' ) ? WAYPOST_BRIDGE_VERSION : '0' )
			. '; WordPress/' . get_bloginfo( 'version' );
		if ( defined( 'WP_TRAVEL_ENGINE_VERSION' ) ) {
			$agent .= '; WPTravelEngine/' . WP_TRAVEL_ENGINE_VERSION;
		}
		$queued = class_exists( 'Waypost_Bridge_Queue_Stats' ) ? Waypost_Bridge_Queue_Stats::count() : 0;
		return array(
			'User-Agent'             => $agent,
			'X-Waypost-Site-Url'     => home_url(),
			'X-Waypost-Queue-Length' => (string) $queued,
		);
	}
}
