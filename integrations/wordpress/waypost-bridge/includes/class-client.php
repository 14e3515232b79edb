<?php
/**
 * Talks to Waypost's Host API (PUT/DELETE /host/v1/{resource}/{id}, POST /host/v1/batch, POST /host/v1/sign-in-links)
 * with the host token as a bearer token, through WordPress' HTTP API.
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

	/** Waypost refuses larger batches. */
	public const BATCH_MAX = 500;

	/**
	 * Encoded bytes at which a batch is cut. Waypost refuses a batch body over 12 MiB with 413 (BATCH_BODY_LIMIT in
	 * src/host/routes.ts); 8 MB leaves a third of it for the envelope and the estimate's error, so a chunk rarely gets
	 * that 413 (200 reviews in Cyrillic at the 20,000-character cap are ~24 MB escaped, 500 English ones 10 MB).
	 */
	public const BATCH_BYTES = 8000000;

	/**
	 * One request to Waypost.
	 *
	 * @param string     $method  HTTP method.
	 * @param string     $path    Path below the base URL, e.g. "/host/v1/bookings/12".
	 * @param array|null $body    JSON body (null: none).
	 * @param float      $timeout Seconds.
	 * @return array{status:int,body:array|null,error:string|null}
	 */
	public static function request( $method, $path, $body, $timeout ) {
		$base  = Waypost_Bridge_Connection::get_url();
		$token = Waypost_Bridge_Connection::get_token();
		if ( null !== self::not_connected() ) {
			return self::answer( 0, null, self::not_connected() );
		}
		$args = array(
			'method'      => strtoupper( $method ),
			'timeout'     => max( 0.5, (float) $timeout ),
			'redirection' => 0, // A redirect would turn a PUT into a GET; report it instead.
			'headers'     => array(
				'Authorization' => 'Bearer ' . $token,
				'Accept'        => 'application/json',
			) + Waypost_Bridge_Connection::identity_headers(),
		);
		if ( null !== $body ) {
			$args['headers']['Content-Type'] = 'application/json';
			$args['body']                    = wp_json_encode( $body );
			if ( false === $args['body'] ) {
				return self::answer( 0, null, 'The request body could not be encoded as JSON: ' . json_last_error_msg() );
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
			$problem = 0 === stripos( (string) wp_remote_retrieve_header( $response, 'content-type' ), 'application/problem+json' );
			$error   = self::describe_error( $status, $problem ? $decoded : null );
		}
		return self::answer( $status, $decoded, $error );
	}

	/**
	 * Upserts one record.
	 *
	 * @param string $resource trips|customers|bookings|payments|enquiries|reviews.
	 * @param int    $id       Record id (WordPress post or comment id).
	 * @param array  $body     Record, as Waypost_Bridge_Mapper::record() makes it.
	 * @param float  $timeout  Seconds.
	 * @return array
	 */
	public static function put( $resource, $id, $body, $timeout = 2.0 ) {
		return self::request( 'PUT', '/host/v1/' . rawurlencode( $resource ) . '/' . (int) $id, $body, $timeout );
	}

	/**
	 * Removes one record. A 404 (Waypost never had it) counts as done: the caller wanted it gone.
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Record id.
	 * @param float  $timeout  Seconds.
	 * @return array
	 */
	public static function delete( $resource, $id, $timeout = 2.0 ) {
		$answer = self::request( 'DELETE', '/host/v1/' . rawurlencode( $resource ) . '/' . (int) $id, null, $timeout );
		if ( 404 === $answer['status'] && self::is_record_not_found( $answer['body'] ) ) {
			$answer['error'] = null;
		}
		return $answer;
	}

	/**
	 * Many PUTs and DELETEs: POST /host/v1/batch {operations: [{op, resource, id, data?}]}. Each operation is run on
	 * its own by Waypost and gets its own result; the operations are sent as several requests of at most 500 and
	 * about BATCH_BYTES each, and a request Waypost still refuses as too large (413) is split in halves. Against a
	 * Waypost without the batch endpoint (404 for the route) the operations are sent one by one instead.
	 *
	 * @param array $ops     List of ['op' => 'put'|'delete', 'resource' => string, 'id' => int, 'data' => array].
	 * @param float $timeout Seconds per request.
	 * @return array ['status', 'body' => ['results' => [[index, status, created?, changed?, error?], …]], 'error']:
	 *               status is the (last) request's; error is set when a request failed as a whole.
	 */
	public static function batch( array $ops, $timeout = 15.0 ) {
		$ops     = array_values( $ops );
		$results = array();
		$status  = 200;
		foreach ( self::chunks( $ops ) as $offset => $chunk ) {
			$answer = self::send_chunk( $chunk, $timeout );
			foreach ( isset( $answer['body']['results'] ) && is_array( $answer['body']['results'] ) ? $answer['body']['results'] : array() as $result ) {
				$result['index'] = $offset + (int) ( isset( $result['index'] ) ? $result['index'] : 0 );
				$results[]       = $result;
			}
			if ( null !== $answer['error'] || ! isset( $answer['body']['results'] ) || ! is_array( $answer['body']['results'] ) ) {
				return self::answer( $answer['status'], array( 'results' => $results ), null !== $answer['error'] ? $answer['error'] : 'Waypost answered the batch without results.' );
			}
			$status = $answer['status'];
		}
		return self::answer( $status, array( 'results' => $results ), null );
	}

	/**
	 * The operations cut into requests of at most BATCH_MAX operations and about BATCH_BYTES of JSON.
	 *
	 * @param array $ops Operations (a list).
	 * @return array Index of each chunk's first operation => the chunk's operations.
	 */
	private static function chunks( array $ops ) {
		$chunks = array();
		$start  = 0;
		$bytes  = 0;
		foreach ( $ops as $index => $op ) {
			$size = strlen( (string) wp_json_encode( $op ) ) + 1;
			if ( $index > $start && ( $index - $start >= self::BATCH_MAX || $bytes + $size > self::BATCH_BYTES ) ) {
				$chunks[ $start ] = array_slice( $ops, $start, $index - $start );
				$start            = $index;
				$bytes            = 0;
			}
			$bytes += $size;
		}
		if ( count( $ops ) > $start ) {
			$chunks[ $start ] = array_slice( $ops, $start );
		}
		return $chunks;
	}

	/**
	 * One chunk as one request; a 413 (body too large, or too many JSON values) splits it in halves, each sent the
	 * same way, down to single operations. Results are indexed within the chunk.
	 *
	 * @param array $ops     Operations (a list).
	 * @param float $timeout Seconds per request.
	 * @return array As batch().
	 */
	private static function send_chunk( array $ops, $timeout ) {
		$answer = self::request( 'POST', '/host/v1/batch', array( 'operations' => $ops ), $timeout );
		if ( 404 === $answer['status'] && ! self::is_record_not_found( $answer['body'] ) ) {
			return self::one_by_one( $ops, $timeout );
		}
		if ( 413 !== $answer['status'] ) {
			return $answer;
		}
		if ( 1 === count( $ops ) ) {
			// Too large on its own: that operation's failure, so the rest go on (sending it again cannot help).
			$error = array(
				'code'   => isset( $answer['body']['code'] ) && is_string( $answer['body']['code'] ) ? $answer['body']['code'] : 'payload_too_large',
				'detail' => null !== $answer['error'] ? $answer['error'] : 'HTTP 413',
			);
			return self::answer( 200, array( 'results' => array( array( 'index' => 0, 'status' => 413, 'error' => $error ) ) ), null );
		}
		$half    = (int) ceil( count( $ops ) / 2 );
		$results = array();
		foreach ( array( 0 => array_slice( $ops, 0, $half ), $half => array_slice( $ops, $half ) ) as $offset => $part ) {
			$part_answer = self::send_chunk( $part, $timeout );
			foreach ( isset( $part_answer['body']['results'] ) && is_array( $part_answer['body']['results'] ) ? $part_answer['body']['results'] : array() as $result ) {
				$result['index'] = $offset + (int) ( isset( $result['index'] ) ? $result['index'] : 0 );
				$results[]       = $result;
			}
			if ( null !== $part_answer['error'] || ! isset( $part_answer['body']['results'] ) ) {
				return self::answer( $part_answer['status'], array( 'results' => $results ), null !== $part_answer['error'] ? $part_answer['error'] : 'Waypost answered the batch without results.' );
			}
		}
		return self::answer( 200, array( 'results' => $results ), null );
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
	public static function sign_in_link( $email, $name, $wp_user_id ) {
		$body = array(
			'email'      => (string) $email,
			'name'       => (string) $name,
			'wp_user_id' => (int) $wp_user_id,
			'site_url'   => home_url(),
		);
		return self::request( 'POST', '/host/v1/sign-in-links', $body, 5.0 );
	}

	/**
	 * Checks the connection without writing anything: GET /healthz (is it Waypost, is it up), then an empty batch
	 * (POST /host/v1/batch {operations: []}), which Waypost answers 200 only for a valid host token.
	 *
	 * @return array ['ok' => bool, 'message' => string, 'status' => int, 'version' => string|null]
	 */
	public static function test_connection() {
		// Every message is fixed text plus a status code: never words from the far end, which may be any server the
		// URL names (the button must not become a way to read pages from the site's network).
		$health = self::request( 'GET', '/healthz', null, 5.0 );
		if ( 0 === $health['status'] ) {
			return self::verdict( false, self::unreachable( (string) $health['error'] ), 0, null );
		}
		if ( 200 !== $health['status'] || ! isset( $health['body']['status'] ) ) {
			return self::verdict( false, sprintf( /* translators: 1: URL, 2: HTTP status */ __( '%1$s does not look like Waypost (GET /healthz answered %2$d). Check the URL.', 'waypost-bridge' ), Waypost_Bridge_Connection::get_url(), $health['status'] ), $health['status'], null );
		}
		$version = isset( $health['body']['version'] ) && is_string( $health['body']['version'] ) && preg_match( '/^[0-9A-Za-z.+-]{1,40}$/', $health['body']['version'] ) ? $health['body']['version'] : null;
		$auth    = self::request( 'POST', '/host/v1/batch', array( 'operations' => array() ), 5.0 );
		if ( 200 === $auth['status'] && isset( $auth['body']['demo_records'] ) && (int) $auth['body']['demo_records'] > 0 ) {
			// This Waypost holds `waypost demo`'s sample records, with ids the site uses too: it refuses those ids (409).
			/* translators: %s: number of records */
			return self::verdict( false, sprintf( __( 'Waypost answers, but it holds the demo catalogue (%s records from `waypost demo`) and refuses records with its ids, so the site\'s records would not all arrive. Remove the demo on the server (`npx waypost demo --remove`, with its DATABASE_URL), or connect a Waypost without it.', 'waypost-bridge' ), number_format_i18n( (int) $auth['body']['demo_records'] ) ), 200, $version );
		}
		if ( 200 === $auth['status'] ) {
			return self::verdict( true, $version ? sprintf( /* translators: %s: version */ __( 'Connected to Waypost %s.', 'waypost-bridge' ), $version ) : __( 'Connected to Waypost.', 'waypost-bridge' ), 200, $version );
		}
		if ( 401 === $auth['status'] ) {
			return self::verdict( false, __( 'Waypost refused the host token. Copy it again from `npx waypost host-token --rotate` (or WAYPOST_HOST_TOKEN on the server).', 'waypost-bridge' ), 401, $version );
		}
		if ( 0 === $auth['status'] ) {
			return self::verdict( false, self::unreachable( (string) $auth['error'] ), 0, $version );
		}
		/* translators: %d: HTTP status */
		return self::verdict( false, sprintf( __( 'Waypost answered the token check with HTTP %d. Its log on the server says why.', 'waypost-bridge' ), $auth['status'] ), $auth['status'], $version );
	}

	/**
	 * A fixed sentence for a request that got no answer, by kind (the transport's own text is not shown).
	 *
	 * @param string $error The WordPress HTTP API's error (or the bridge's "not connected").
	 * @return string
	 */
	private static function unreachable( $error ) {
		if ( null !== self::not_connected() ) {
			return self::not_connected(); // The bridge's own words: nothing was sent.
		}
		$kinds = array(
			'/timed? ?out|cURL error 28/i'                                => __( 'no answer in time', 'waypost-bridge' ),
			'/resolve|cURL error 6\b/i'                                   => __( 'the host name does not resolve', 'waypost-bridge' ),
			'/SSL|TLS|certificate|cURL error (35|51|53|58|60|77|83|90)\b/i' => __( 'the TLS handshake or certificate failed', 'waypost-bridge' ),
			'/refused|cURL error 7\b/i'                                   => __( 'the connection was refused', 'waypost-bridge' ),
			'/blocked/i'                                                  => __( 'WordPress blocked the request (WP_HTTP_BLOCK_EXTERNAL)', 'waypost-bridge' ),
		);
		$why = __( 'the request failed', 'waypost-bridge' );
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
	 * The operations as single requests (a Waypost older than the batch endpoint), answered like a batch.
	 *
	 * @param array $ops     Operations.
	 * @param float $timeout Seconds for the whole chunk.
	 * @return array
	 */
	private static function one_by_one( array $ops, $timeout ) {
		$results = array();
		$each    = max( 2.0, $timeout / max( 1, count( $ops ) ) );
		foreach ( $ops as $index => $op ) {
			$answer = 'delete' === $op['op']
				? self::request( 'DELETE', '/host/v1/' . rawurlencode( $op['resource'] ) . '/' . (int) $op['id'], null, $each )
				: self::put( $op['resource'], $op['id'], $op['data'], $each );
			if ( 0 === $answer['status'] || $answer['status'] >= 500 || 401 === $answer['status'] ) {
				return $answer; // The request failed as a whole: the caller retries the chunk.
			}
			$result = array( 'index' => $index, 'status' => $answer['status'] );
			if ( null !== $answer['error'] ) {
				$result['error'] = array(
					'code'   => isset( $answer['body']['code'] ) ? (string) $answer['body']['code'] : 'http_' . $answer['status'],
					'detail' => $answer['error'],
				);
			} elseif ( isset( $answer['body']['created'] ) ) {
				$result['created'] = (bool) $answer['body']['created'];
				$result['changed'] = ! empty( $answer['body']['changed'] );
			}
			$results[] = $result;
		}
		return self::answer( 200, array( 'results' => $results ), null );
	}

	/**
	 * A 404 about a record (Waypost's problem JSON) rather than about the route.
	 *
	 * @param array|null $body Decoded body.
	 * @return bool
	 */
	private static function is_record_not_found( $body ) {
		return is_array( $body ) && isset( $body['code'] ) && 'not_found' === $body['code'] && ( ! isset( $body['detail'] ) || 0 !== strpos( (string) $body['detail'], 'No route' ) );
	}

	/**
	 * Why a request cannot be sent (no URL, or no token usable for it), or null when it can.
	 *
	 * @return string|null
	 */
	private static function not_connected() {
		if ( '' === Waypost_Bridge_Connection::get_url() ) {
			return __( 'Waypost is not connected: set its URL (WAYPOST_URL or Settings > Webhooks & API).', 'waypost-bridge' );
		}
		if ( '' === Waypost_Bridge_Connection::get_token() ) {
			$problem = Waypost_Bridge_Connection::token_problem();
			return $problem ? $problem : __( 'Waypost is not connected: set the host token (WAYPOST_HOST_TOKEN or Settings > Webhooks & API).', 'waypost-bridge' );
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
	private static function describe_error( $status, $problem ) {
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
	private static function answer( $status, $body, $error ) {
		return array(
			'status' => (int) $status,
			'body'   => $body,
			'error'  => $error,
		);
	}

	/**
	 * @param bool        $ok      Verdict.
	 * @param string      $message For the page.
	 * @param int         $status  HTTP status.
	 * @param string|null $version Waypost's version.
	 * @return array
	 */
	private static function verdict( $ok, $message, $status, $version ) {
		return array(
			'ok'      => (bool) $ok,
			'message' => $message,
			'status'  => (int) $status,
			'version' => $version,
		);
	}
}
