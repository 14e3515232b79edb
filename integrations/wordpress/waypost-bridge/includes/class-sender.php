<?php
/**
 * Sending one record: reads it through the mapper and sends its state (PUT), its removal (DELETE) or nothing
 * (half-written), and classifies Waypost's answer as an outcome the forwarder and the queue act on. Every send holds
 * a per-record database lock and reads the record after taking it, so two requests (or a request and WP-Cron) never
 * send one record's states out of order.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * One record to Waypost, under its lock.
 */
class Waypost_Bridge_Sender {

	/**
	 * Reads the record and sends it. PUT when the mapper gives a body; DELETE when it gives none and the record was
	 * deleted, trashed or (a review) unapproved; nothing when it gives none otherwise (half-written, a draft…).
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 * @param string $op       put|delete.
	 * @param float  $timeout  Seconds.
	 * @return array{result:string, error:?string, unreachable:bool, slow:bool, method:string}
	 */
	public static function send( $resource, $id, $op, $timeout ): array {
		try {
			$body = self::map( $resource, $id, true );
		} catch ( \Throwable $e ) {
			$error = 'Could not read ' . self::label( $resource, $id ) . ': ' . $e->getMessage();
			return self::outcome( 'refused', $error, false, false, $op );
		}
		if ( null === $body ) {
			if ( 'delete' !== $op && ! self::is_gone( $resource, $id ) ) {
				return self::outcome( 'nothing', null, false, false, 'put' );
			}
			$started = microtime( true );
			$res     = Waypost_Bridge_Client::delete( $resource, $id, max( 0.1, (float) $timeout ) );
			return self::classify( $res, 'delete', $resource, $id, microtime( true ) - $started, $timeout );
		}
		$started = microtime( true );
		$res     = Waypost_Bridge_Client::put( $resource, $id, $body, max( 0.1, (float) $timeout ) );
		return self::classify( $res, 'put', $resource, $id, microtime( true ) - $started, $timeout );
	}

	/**
	 * Turns a client response into an outcome. 2xx (and 404 on a delete) is sent; no answer, 5xx, 401, 408, 409, 425
	 * and 429 are failures to retry; any other 4xx is a refusal (the same request would be refused again): it is
	 * kept with its error but not retried until the record changes or an admin retries.
	 *
	 * @param array  $res      Client response {status, body, error}.
	 * @param string $method   put|delete.
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 * @param float  $took     Seconds taken.
	 * @param float  $timeout  Timeout used.
	 */
	private static function classify( $res, $method, $resource, $id, $took, $timeout ): array {
		$status = is_array( $res ) && isset( $res['status'] ) ? (int) $res['status'] : 0;
		$label  = strtoupper( $method ) . ' ' . self::label( $resource, $id );
		if ( $status >= 200 && $status < 300 ) {
			return self::outcome( 'sent', null, false, false, $method );
		}
		if ( 'delete' === $method && 404 === $status ) {
			return self::outcome( 'sent', null, false, false, $method ); // Already gone (or never sent).
		}
		$detail = self::detail( $res );
		if ( 0 === $status ) {
			$slow = $took >= min( 1.0, $timeout * 0.9 );
			$error = "{$label}: Waypost did not answer" . ( '' !== $detail ? " ({$detail})" : '' );
			return self::outcome( 'failed', $error, true, $slow, $method );
		}
		if ( 401 === $status ) {
			$error = "{$label}: Waypost refused the host token (401). Check the token on Settings > Webhooks & API.";
			return self::outcome( 'failed', $error . ( '' !== $detail ? " {$detail}" : '' ), false, false, $method );
		}
		if ( $status >= 400 && $status < 500 && ! in_array( $status, array( 408, 409, 425, 429 ), true ) ) {
			$error = "{$label}: Waypost answered {$status}, not retried until the record changes";
			return self::outcome( 'refused', $error . ( '' !== $detail ? ": {$detail}" : '' ), false, false, $method );
		}
		$error = "{$label}: Waypost answered {$status}" . ( '' !== $detail ? ": {$detail}" : '' );
		return self::outcome( 'failed', $error, false, false, $method );
	}

	/**
	 * A short error text from a client response (the client already summarises Waypost's problem JSON).
	 *
	 * @param mixed $res Response.
	 */
	private static function detail( $res ): string {
		if ( is_array( $res ) && ! empty( $res['error'] ) ) {
			return substr( (string) $res['error'], 0, 500 );
		}
		if ( is_array( $res ) && isset( $res['body']['detail'] ) && is_string( $res['body']['detail'] ) ) {
			return substr( $res['body']['detail'], 0, 500 );
		}
		return '';
	}

	/**
	 * Outcome record.
	 */
	public static function outcome(
		string $result,
		?string $error = null,
		bool $unreachable = false,
		bool $slow = false,
		string $method = 'put'
	): array {
		return array(
			'result'      => $result,
			'error'       => $error,
			'unreachable' => $unreachable,
			'slow'        => $slow,
			'method'      => $method,
		);
	}

	/**
	 * The mapper's body for a record; null when it does not exist, is half-written or trashed.
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 * @param bool   $fresh    Drop WordPress' cached copy first (another request may have changed it).
	 * @return array|null
	 */
	public static function map( $resource, $id, $fresh = false ): ?array {
		if ( $fresh ) {
			if ( method_exists( 'Waypost_Bridge_Mapper', 'reset_cache' ) ) {
				Waypost_Bridge_Mapper::reset_cache();
			}
			if ( 'reviews' === $resource ) {
				clean_comment_cache( $id );
			} else {
				clean_post_cache( $id );
			}
		}
		try {
			$body = Waypost_Bridge_Mapper::record( $resource, (int) $id );
		} catch ( \Throwable $e ) {
			if ( $fresh ) {
				throw $e;
			}
			return null;
		}
		return is_array( $body ) ? $body : null;
	}

	/**
	 * Whether a record was deleted or trashed in WordPress (for a review: deleted, trashed, spam, or its trip
	 * trashed). A review merely held for moderation is not gone: unapproving a review is caught by its hooks.
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 */
	private static function is_gone( $resource, $id ): bool {
		if ( 'reviews' === $resource ) {
			$comment = get_comment( $id );
			$gone = array( 'trash', 'spam', 'post-trashed' );
			return ! $comment || in_array( (string) $comment->comment_approved, $gone, true );
		}
		$post = get_post( $id );
		return ! $post || 'trash' === $post->post_status;
	}

	/**
	 * "bookings 42" → "booking 42".
	 */
	private static function label( $resource, $id ): string {
		$singular = array(
			'trips'     => 'trip',
			'customers' => 'customer',
			'bookings'  => 'booking',
			'payments'  => 'payment',
			'enquiries' => 'enquiry',
			'reviews'   => 'review',
		);
		return ( isset( $singular[ $resource ] ) ? $singular[ $resource ] : $resource ) . ' ' . $id;
	}

	// ------------------------------------------------------------------------------------------------ locks

	/**
	 * A per-record MySQL named lock (server-wide, so named after this site's database and table prefix).
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 * @param int    $wait     Seconds to wait.
	 * @return bool|null true: held; false: busy; null: locks unavailable (sent without one).
	 */
	public static function lock( $resource, $id, $wait ): ?bool {
		global $wpdb;
		$name = self::lock_name( $resource, $id );
		$got  = $wpdb->get_var( $wpdb->prepare( 'SELECT GET_LOCK(%s, %d)', $name, (int) $wait ) );
		if ( null === $got ) {
			return null;
		}
		return '1' === (string) $got;
	}

	public static function unlock( $resource, $id, $lock ): void {
		global $wpdb;
		if ( true === $lock ) {
			$wpdb->get_var( $wpdb->prepare( 'SELECT RELEASE_LOCK(%s)', self::lock_name( $resource, $id ) ) );
		}
	}

	private static function lock_name( $resource, $id ): string {
		global $wpdb;
		// At most 64 characters.
		return 'waypost_' . substr( md5( DB_NAME . '|' . $wpdb->prefix ), 0, 12 ) . '_' . $resource . '_' . (int) $id;
	}
}
