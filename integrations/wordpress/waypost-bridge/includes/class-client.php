<?php
/**
 * Talks to Waypost's Host API (PUT/DELETE /host/v1/{resource}/{id}, POST /host/v1/sign-in-links) with the host token
 * as a bearer token, through WordPress' HTTP API. Batches are class-batch-client.php's, the settings page's
 * connection check class-connection-check.php's; both send through request().
 *
 * Every method answers ['status' => int (0 = no answer), 'body' => array|null, 'error' => string|null]; it never
 * throws, so a caller in a checkout can always carry on.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Host API client.
 */
class Waypost_Bridge_Client {

	/**
	 * One request to Waypost.
	 *
	 * @param string     $method  HTTP method.
	 * @param string     $path    Path below the base URL, e.g. "/host/v1/bookings/12".
	 * @param array|null $body    JSON body (null: none).
	 * @param float      $timeout Seconds.
	 * @return array{status:int,body:array|null,error:string|null}
	 */
	public static function request( string $method, string $path, ?array $body, float $timeout ): array {
		$base  = Waypost_Bridge_Connection::get_url();
		$token = Waypost_Bridge_Connection::get_token();
		if ( null !== self::not_connected() ) {
			return self::answer( 0, null, self::not_connected() );
		}
		$args = array(
			'method'      => strtoupper( $method ),
			'timeout'     => max( 0.5, $timeout ),
			'redirection' => 0, // A redirect would turn a PUT into a GET; report it instead.
			'headers'     => array(
				'Authorization' => 'Bearer ' . $token,
				'Accept'        => 'application/json',
				'traceparent'   => self::traceparent(),
			) + Waypost_Bridge_Connection::identity_headers(),
		);
		if ( null !== $body ) {
			$args['headers']['Content-Type'] = 'application/json';
			$args['body']                    = wp_json_encode( $body );
			if ( false === $args['body'] ) {
				$why = 'The request body could not be encoded as JSON: ' . json_last_error_msg();
				return self::answer( 0, null, $why );
			}
		}
		$response = wp_remote_request( $base . $path, $args );
		if ( is_wp_error( $response ) ) {
			return self::answer( 0, null, $response->get_error_message() );
		}
		$status  = (int) wp_remote_retrieve_response_code( $response );
		$raw     = (string) wp_remote_retrieve_body( $response );
		$decoded = '' === $raw ? null : json_decode( $raw, true );
		$decoded = is_array( $decoded ) ? $decoded : null;
		$error   = null;
		if ( $status < 200 || $status >= 300 ) {
			$type    = (string) wp_remote_retrieve_header( $response, 'content-type' );
			$problem = 0 === stripos( $type, 'application/problem+json' );
			$error   = self::describe_error( $status, $problem ? $decoded : null );
		}
		return self::answer( $status, $decoded, $error );
	}

	/**
	 * A W3C Trace Context `traceparent` for one request: version 00, a fresh random trace id (32 lowercase hex
	 * digits) and span id (16), flags 01 (sampled). Each request to Waypost is its own trace, so Waypost's traces
	 * (issue 37) can tell the site's calls apart; an id of all zeros is invalid and is drawn again.
	 *
	 * @return string "00-<trace id>-<span id>-01".
	 */
	public static function traceparent(): string {
		do {
			$trace = bin2hex( random_bytes( 16 ) );
		} while ( str_repeat( '0', 32 ) === $trace );
		do {
			$span = bin2hex( random_bytes( 8 ) );
		} while ( str_repeat( '0', 16 ) === $span );
		return '00-' . $trace . '-' . $span . '-01';
	}

	/**
	 * Upserts one record.
	 *
	 * @param string     $resource trips|customers|bookings|payments|enquiries|reviews.
	 * @param int        $id       Record id (WordPress post or comment id).
	 * @param array|null $body     Record, as Waypost_Bridge_Mapper::record() makes it.
	 * @param float      $timeout  Seconds.
	 * @return array
	 */
	public static function put( string $resource, int $id, ?array $body, float $timeout = 2.0 ): array {
		return self::request( 'PUT', '/host/v1/' . rawurlencode( $resource ) . '/' . $id, $body, $timeout );
	}

	/**
	 * Removes one record. A 404 (Waypost never had it) counts as done: the caller wanted it gone.
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Record id.
	 * @param float  $timeout  Seconds.
	 * @return array
	 */
	public static function delete( string $resource, int $id, float $timeout = 2.0 ): array {
		$answer = self::request( 'DELETE', '/host/v1/' . rawurlencode( $resource ) . '/' . $id, null, $timeout );
		if ( 404 === $answer['status'] && self::is_record_not_found( $answer['body'] ) ) {
			$answer['error'] = null;
		}
		return $answer;
	}

	/**
	 * A sign-in link to the Waypost console for a WordPress administrator: POST /host/v1/sign-in-links. Waypost opens
	 * only the account bound to this site and user (made for them, or allowed by its owner in the console); it
	 * answers 403 account_not_linked for another account's e-mail.
	 *
	 * @param string $email      The administrator's e-mail.
	 * @param string $name       Display name.
	 * @param int    $wp_user_id The administrator's WordPress user id.
	 * @return array body: ['url' => string, 'expires_at' => string] on success (status 201).
	 */
	public static function sign_in_link( string $email, string $name, int $wp_user_id ): array {
		$body = array(
			'email'      => $email,
			'name'       => $name,
			'wp_user_id' => $wp_user_id,
			'site_url'   => home_url(),
		);
		return self::request( 'POST', '/host/v1/sign-in-links', $body, 5.0 );
	}

	/**
	 * A 404 about a record (Waypost's problem JSON) rather than about the route.
	 *
	 * @param array|null $body Decoded body.
	 * @return bool
	 */
	public static function is_record_not_found( ?array $body ): bool {
		return is_array( $body ) && isset( $body['code'] ) && 'not_found' === $body['code']
			&& ( ! isset( $body['detail'] ) || 0 !== strpos( (string) $body['detail'], 'No route' ) );
	}

	/**
	 * Why a request cannot be sent (no URL, or no token usable for it), or null when it can.
	 *
	 * @return string|null
	 */
	public static function not_connected(): ?string {
		if ( '' === Waypost_Bridge_Connection::get_url() ) {
			return __(
				'Waypost is not connected: set its URL (WAYPOST_URL or Settings > Webhooks & API).',
				'waypost-bridge'
			);
		}
		if ( '' === Waypost_Bridge_Connection::get_token() ) {
			$problem = Waypost_Bridge_Connection::token_problem();
			return $problem ? $problem : __(
				'Waypost is not connected: set the host token (WAYPOST_HOST_TOKEN or Settings > Webhooks & API).',
				'waypost-bridge'
			);
		}
		return null;
	}

	/**
	 * One line for a failed answer: Waypost's problem JSON (code, detail), or the status alone. Any other body is
	 * not repeated: it is not Waypost's, and the page and the log must not show what some other server says.
	 *
	 * @param int        $status  HTTP status.
	 * @param array|null $problem Decoded application/problem+json body.
	 * @return string
	 */
	private static function describe_error( int $status, ?array $problem ): string {
		if ( is_array( $problem ) && isset( $problem['code'] ) && is_string( $problem['code'] ) ) {
			$parts = array( $problem['code'] );
			foreach ( array( 'detail', 'message' ) as $key ) {
				if ( isset( $problem[ $key ] ) && is_scalar( $problem[ $key ] ) ) {
					$parts[] = (string) $problem[ $key ];
				}
			}
			return 'HTTP ' . $status . ': ' . substr( implode( ': ', $parts ), 0, 300 );
		}
		if ( $status >= 300 && $status < 400 ) {
			return 'HTTP ' . $status . ': Waypost answered with a redirect; use the final URL (https?) as WAYPOST_URL.';
		}
		return 'HTTP ' . $status . ': not an answer from Waypost (a proxy, or the wrong URL?)';
	}

	/**
	 * @param int         $status Status.
	 * @param array|null  $body   Body.
	 * @param string|null $error  Error.
	 * @return array
	 */
	public static function answer( int $status, ?array $body, ?string $error ): array {
		return array(
			'status' => $status,
			'body'   => $body,
			'error'  => $error,
		);
	}
}
