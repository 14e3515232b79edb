<?php
/**
 * The settings page's (and `wp waypost status`'s) "Test connection": is the URL Waypost, is it up, does it take the
 * host token; answered in fixed sentences, never in words from the far end.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Connection check against Waypost.
 */
class Waypost_Bridge_Connection_Check {

	/**
	 * Checks the connection without writing anything: GET /healthz (is it Waypost, is it up), then an empty batch
	 * (POST /host/v1/batch {operations: []}), which Waypost answers 200 only for a valid host token.
	 *
	 * @return array ['ok' => bool, 'message' => string, 'status' => int, 'version' => string|null]
	 */
	public static function run(): array {
		// Every message is fixed text plus a status code: never words from the far end, which may be any server the
		// URL names (the button must not become a way to read pages from the site's network).
		$health = Waypost_Bridge_Client::request( 'GET', '/healthz', null, 5.0 );
		if ( 0 === $health['status'] ) {
			return self::verdict( false, self::unreachable( (string) $health['error'] ), 0, null );
		}
		if ( 200 !== $health['status'] || ! isset( $health['body']['status'] ) ) {
			$message = sprintf(
				/* translators: 1: URL, 2: HTTP status */
				__( '%1$s does not look like Waypost (GET /healthz answered %2$d). Check the URL.', 'waypost-bridge' ),
				Waypost_Bridge_Connection::get_url(),
				$health['status']
			);
			return self::verdict( false, $message, $health['status'], null );
		}
		$version = $health['body']['version'] ?? null;
		$version = is_string( $version ) && preg_match( '/^[0-9A-Za-z.+-]{1,40}$/', $version ) ? $version : null;
		$empty   = array( 'operations' => array() );
		$auth    = Waypost_Bridge_Client::request( 'POST', '/host/v1/batch', $empty, 5.0 );
		$demo    = 200 === $auth['status'] && isset( $auth['body']['demo_records'] )
			? (int) $auth['body']['demo_records']
			: 0;
		if ( $demo > 0 ) {
			// This Waypost holds `waypost demo`'s sample records, with ids the site uses too: it refuses them (409).
			/* translators: %s: number of records */
			$holds = __(
				'Waypost answers, but it holds the demo catalogue (%s records from `waypost demo`).',
				'waypost-bridge'
			);
			/* translators: %s: a command */
			$remove  = __(
				'Remove the demo on the server (%s, with its DATABASE_URL), or connect a Waypost without it.',
				'waypost-bridge'
			);
			$refuses = __(
				'It refuses records with the demo\'s ids, so the site\'s records would not all arrive.',
				'waypost-bridge'
			);
			$message = sprintf( $holds, number_format_i18n( $demo ) ) . ' ' . $refuses . ' '
				. sprintf( $remove, '`npx waypost demo --remove`' );
			return self::verdict( false, $message, 200, $version );
		}
		if ( 200 === $auth['status'] ) {
			/* translators: %s: version */
			$connected = __( 'Connected to Waypost %s.', 'waypost-bridge' );
			$message   = $version ? sprintf( $connected, $version ) : __( 'Connected to Waypost.', 'waypost-bridge' );
			return self::verdict( true, $message, 200, $version );
		}
		if ( 401 === $auth['status'] ) {
			$message = sprintf(
				/* translators: 1: a command, 2: a setting */
				__(
					'Waypost refused the host token. Copy it again from %1$s (or %2$s on the server).',
					'waypost-bridge'
				),
				'`npx waypost host-token --rotate`',
				'WAYPOST_HOST_TOKEN'
			);
			return self::verdict( false, $message, 401, $version );
		}
		if ( 0 === $auth['status'] ) {
			return self::verdict( false, self::unreachable( (string) $auth['error'] ), 0, $version );
		}
		$message = sprintf(
			/* translators: %d: HTTP status */
			__( 'Waypost answered the token check with HTTP %d. Its log on the server says why.', 'waypost-bridge' ),
			$auth['status']
		);
		return self::verdict( false, $message, $auth['status'], $version );
	}

	/**
	 * A fixed sentence for a request that got no answer, by kind (the transport's own text is not shown).
	 *
	 * @param string $error The WordPress HTTP API's error (or the bridge's "not connected").
	 * @return string
	 */
	private static function unreachable( string $error ): string {
		$not_connected = Waypost_Bridge_Client::not_connected();
		if ( null !== $not_connected ) {
			return $not_connected; // The bridge's own words: nothing was sent.
		}
		$kinds = array(
			'/timed? ?out|cURL error 28/i' => __( 'no answer in time', 'waypost-bridge' ),
			'/resolve|cURL error 6\b/i'    => __( 'the host name does not resolve', 'waypost-bridge' ),
			'/SSL|TLS|certificate|cURL error (35|51|53|58|60|77|83|90)\b/i'
				=> __( 'the TLS handshake or certificate failed', 'waypost-bridge' ),
			'/refused|cURL error 7\b/i'    => __( 'the connection was refused', 'waypost-bridge' ),
			'/blocked/i'                   => sprintf(
				/* translators: %s: a setting */
				__( 'WordPress blocked the request (%s)', 'waypost-bridge' ),
				'WP_HTTP_BLOCK_EXTERNAL'
			),
		);
		$why   = __( 'the request failed', 'waypost-bridge' );
		foreach ( $kinds as $pattern => $text ) {
			if ( preg_match( $pattern, $error ) ) {
				$why = $text;
				break;
			}
		}
		/* translators: %s: why, e.g. "the connection was refused" */
		return sprintf( __( 'Waypost cannot be reached: %s.', 'waypost-bridge' ), $why );
	}

	/**
	 * @param bool        $ok      Verdict.
	 * @param string      $message For the page.
	 * @param int         $status  HTTP status.
	 * @param string|null $version Waypost's version.
	 * @return array
	 */
	private static function verdict( bool $ok, string $message, int $status, ?string $version ): array {
		return array(
			'ok'      => $ok,
			'message' => $message,
			'status'  => $status,
			'version' => $version,
		);
	}
}
