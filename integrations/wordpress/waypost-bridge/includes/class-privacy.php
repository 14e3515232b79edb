<?php
/**
 * WordPress's privacy tools reach Waypost: a personal data eraser and exporter, so that one request in *Tools > Erase
 * Personal Data* also erases the person in Waypost, and *Export Personal Data* includes what Waypost holds.
 *
 * Erasing: WordPress calls the eraser page after page until it says done. Page 1 asks Waypost for the erasure
 * (POST /host/v1/erasures, a job); the next pages follow it (GET /host/v1/erasures/{id}), a few seconds each, until it
 * has finished, then list the webhooks that had received the person's data (they cannot be recalled). When Waypost
 * cannot be reached, the erasure is queued durably (Waypost_Bridge_Erasure_Queue) and sent by the retry queue.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * The eraser and the exporter.
 */
class Waypost_Bridge_Privacy {

	/** The key both are registered under. */
	public const SLUG = 'waypost-bridge';

	/** Transient prefix: the erasure being followed for an e-mail (by Waypost_Bridge_Erasure_Queue::key()). */
	public const TRANSIENT = 'waypost_bridge_erasure_';

	/** Seconds one eraser page may spend following an erasure (WordPress calls the next page at once). */
	public const FOLLOW_FOR = 3.0;

	/** Pages after which a still-running erasure is left to Waypost (about ten minutes of following). */
	public const MAX_PAGES = 200;

	/** Hooks. The plugin's main file calls this once. */
	public static function register(): void {
		add_filter( 'wp_privacy_personal_data_erasers', array( __CLASS__, 'add_eraser' ) );
		add_filter( 'wp_privacy_personal_data_exporters', array( __CLASS__, 'add_exporter' ) );
	}

	/** @return string "Waypost (webhooks and API)". */
	public static function friendly_name(): string {
		return __( 'Waypost (webhooks and API)', 'waypost-bridge' );
	}

	/**
	 * @param array $erasers Registered erasers.
	 * @return array
	 */
	public static function add_eraser( $erasers ): array {
		$erasers                = is_array( $erasers ) ? $erasers : array();
		$erasers[ self::SLUG ] = array(
			'eraser_friendly_name' => self::friendly_name(),
			'callback'             => array( __CLASS__, 'erase' ),
		);
		return $erasers;
	}

	/**
	 * @param array $exporters Registered exporters.
	 * @return array
	 */
	public static function add_exporter( $exporters ): array {
		$exporters                = is_array( $exporters ) ? $exporters : array();
		$exporters[ self::SLUG ] = array(
			'exporter_friendly_name' => self::friendly_name(),
			'callback'               => array( __CLASS__, 'export' ),
		);
		return $exporters;
	}

	/**
	 * The eraser: ($email, $page) => {items_removed, items_retained, messages, done}.
	 *
	 * @param string $email E-mail.
	 * @param int    $page  Page, from 1.
	 * @return array
	 */
	public static function erase( $email, $page = 1 ): array {
		$email = trim( (string) $email );
		if ( '' === Waypost_Bridge_Connection::get_url() ) {
			return self::erased( false, false, array(), true ); // Not connected to a Waypost: it holds nothing.
		}
		$transient = self::TRANSIENT . Waypost_Bridge_Erasure_Queue::key( $email );
		$id        = (int) $page > 1 ? (string) get_transient( $transient ) : '';
		if ( '' === $id ) {
			$start = self::start_erasure( $email, 5.0 );
			if ( 'accepted' !== $start['result'] ) {
				return self::not_sent( $email, $start );
			}
			$erasure = $start['erasure'];
			set_transient( $transient, (string) $erasure['id'], DAY_IN_SECONDS );
		} else {
			$erasure = self::follow( $id );
			if ( null === $erasure ) { // Waypost stopped answering meanwhile: ask again later (it is idempotent).
				delete_transient( $transient );
				$error = __( 'Waypost stopped answering during the erasure.', 'waypost-bridge' );
				return self::not_sent( $email, self::attempt( 'retry', 0, $error ) );
			}
		}
		if ( 'running' === $erasure['status'] ) {
			if ( (int) $page < self::MAX_PAGES ) {
				return self::erased( false, false, array(), false );
			}
			delete_transient( $transient );
			$long = __(
				'The erasure is still running in Waypost; see Waypost\'s console (Privacy) for its outcome.',
				'waypost-bridge'
			);
			return self::erased( false, true, array( $long ), true );
		}
		delete_transient( $transient );
		if ( 'succeeded' !== $erasure['status'] ) {
			// Failed or interrupted: asking again finishes it (each step can run twice).
			$why = sprintf( 'Waypost\'s erasure %s %s.', $erasure['id'], $erasure['status'] );
			return self::not_sent( $email, self::attempt( 'retry', 500, $why ) );
		}
		return self::erased( self::removed_any( $erasure ), false, self::webhook_messages( $erasure ), true );
	}

	/**
	 * Asks Waypost to erase an e-mail (also the erasure queue's retry). Accepted: the queued request is forgotten.
	 *
	 * @param string $email   E-mail.
	 * @param float  $timeout Seconds.
	 * @return array{result:string, status:int, error:?string, erasure:?array} result: accepted|retry|refused.
	 */
	public static function start_erasure( string $email, float $timeout ): array {
		$not = Waypost_Bridge_Client::not_connected();
		if ( null !== $not ) {
			return self::attempt( 'retry', 0, $not );
		}
		$answer = Waypost_Bridge_Client::request( 'POST', '/host/v1/erasures', array( 'email' => $email ), $timeout );
		$status = (int) $answer['status'];
		$body   = $answer['body'];
		if ( $status >= 200 && $status < 300 && is_array( $body ) && isset( $body['id'], $body['status'] ) ) {
			Waypost_Bridge_Erasure_Queue::forget( $email );
			return self::attempt( 'accepted', $status, null, $body );
		}
		$error = null !== $answer['error'] ? $answer['error'] : 'HTTP ' . $status . ': not an erasure';
		return self::attempt( self::refused( $status ) ? 'refused' : 'retry', $status, $error );
	}

	/**
	 * A 4xx that the same request would get again (not 401: a token to fix; not 408, 409, 425, 429: later).
	 *
	 * @param int $status HTTP status.
	 */
	public static function refused( int $status ): bool {
		return $status >= 400 && $status < 500 && ! in_array( $status, array( 401, 408, 409, 425, 429 ), true );
	}

	/**
	 * Follows an erasure for up to FOLLOW_FOR seconds: its state once finished or when the time is up; null when
	 * Waypost does not answer (or no longer knows it).
	 *
	 * @param string $id Erasure id.
	 * @return array|null
	 */
	private static function follow( string $id ): ?array {
		$until = microtime( true ) + self::FOLLOW_FOR;
		do {
			$answer = Waypost_Bridge_Client::request( 'GET', '/host/v1/erasures/' . rawurlencode( $id ), null, 3.0 );
			$body   = $answer['body'];
			if ( 200 !== $answer['status'] || ! is_array( $body ) || ! isset( $body['status'] ) ) {
				return null;
			}
			if ( 'running' !== $body['status'] || microtime( true ) + 0.3 > $until ) {
				return $body;
			}
			usleep( 250000 );
		} while ( true );
	}

	/**
	 * The answer when the erasure could not be sent: queued (retried until Waypost accepts it), or refused.
	 *
	 * @param string $email   E-mail.
	 * @param array  $attempt start_erasure()'s answer.
	 * @return array
	 */
	private static function not_sent( string $email, array $attempt ): array {
		if ( 'refused' === $attempt['result'] ) {
			/* translators: %s: Waypost's answer, e.g. "HTTP 400: invalid_field: email …" */
			$refused = __( 'Waypost refused the erasure (%s); nothing was erased there.', 'waypost-bridge' );
			return self::erased( false, true, array( sprintf( $refused, $attempt['error'] ) ), true );
		}
		Waypost_Bridge_Erasure_Queue::push( $email, (string) $attempt['error'] );
		/* translators: %s: why, e.g. "cURL error 7: Failed to connect" */
		$queued = __(
			'Waypost could not be reached (%s). The erasure is queued and will be sent when Waypost answers.',
			'waypost-bridge'
		);
		return self::erased( false, true, array( sprintf( $queued, $attempt['error'] ) ), true );
	}

	/**
	 * Whether the erasure removed or anonymised anything.
	 *
	 * @param array $erasure Waypost's erasure.
	 */
	private static function removed_any( array $erasure ): bool {
		$counts = isset( $erasure['counts'] ) && is_array( $erasure['counts'] ) ? $erasure['counts'] : array();
		return array_sum( array_map( 'intval', $counts ) ) > 0;
	}

	/**
	 * One message per webhook that had received the person's data: the site owner passes the request on.
	 *
	 * @param array $erasure Waypost's erasure.
	 * @return string[]
	 */
	public static function webhook_messages( array $erasure ): array {
		$messages = array();
		$webhooks = isset( $erasure['webhooks'] ) && is_array( $erasure['webhooks'] ) ? $erasure['webhooks'] : array();
		foreach ( $webhooks as $webhook ) {
			/* translators: 1: webhook name, 2: its URL */
			$sent       = __(
				'Waypost had sent this person\'s data to: %1$s (%2$s) — pass the request on to them.',
				'waypost-bridge'
			);
			$messages[] = sprintf( $sent, (string) $webhook['name'], (string) $webhook['url'] );
		}
		return $messages;
	}

	/**
	 * The exporter: ($email, $page) => {data: items, done}. Waypost answers the whole export at once.
	 *
	 * @param string $email E-mail.
	 * @param int    $page  Page (only 1 has data).
	 * @return array
	 */
	public static function export( $email, $page = 1 ): array {
		if ( (int) $page > 1 || '' === Waypost_Bridge_Connection::get_url() ) {
			return array( 'data' => array(), 'done' => true );
		}
		$not    = Waypost_Bridge_Client::not_connected();
		$body   = array( 'email' => trim( (string) $email ) );
		$answer = null === $not ? Waypost_Bridge_Client::request( 'POST', '/host/v1/exports', $body, 15.0 ) : null;
		if ( null === $answer || 200 !== $answer['status'] || ! is_array( $answer['body'] ) ) {
			$why = null === $answer ? $not : (string) $answer['error'];
			return array(
				'data' => array( Waypost_Bridge_Privacy_Items::unreachable( $why ) ),
				'done' => true,
			);
		}
		return array(
			'data' => Waypost_Bridge_Privacy_Items::items( $answer['body'] ),
			'done' => true,
		);
	}

	/**
	 * @param string      $result  accepted|retry|refused.
	 * @param int         $status  HTTP status (0: no answer).
	 * @param string|null $error   Why not accepted.
	 * @param array|null  $erasure Waypost's erasure when accepted.
	 */
	private static function attempt( string $result, int $status, ?string $error, ?array $erasure = null ): array {
		return array(
			'result'  => $result,
			'status'  => $status,
			'error'   => $error,
			'erasure' => $erasure,
		);
	}

	/**
	 * An eraser's answer.
	 *
	 * @param bool     $removed  Items removed.
	 * @param bool     $retained Items retained.
	 * @param string[] $messages Messages.
	 * @param bool     $done     Done.
	 */
	private static function erased( bool $removed, bool $retained, array $messages, bool $done ): array {
		return array(
			'items_removed'  => $removed,
			'items_retained' => $retained,
			'messages'       => $messages,
			'done'           => $done,
		);
	}
}
