<?php
/**
 * Erasure requests waiting for Waypost: WordPress's *Erase Personal Data* ran while Waypost could not be reached (or
 * answered 5xx, 401, 429…), so the request is kept here and sent by the retry queue's WP-Cron run until Waypost
 * accepts it (202). An erasure request is never dropped before that.
 *
 * The retry queue's table holds no data (it re-reads a record when it sends it); an erasure has no record left to
 * re-read, so its e-mail must be kept until it is sent. It is kept in one option (not autoloaded), keyed by a keyed
 * hash of the e-mail, and deleted as soon as Waypost accepted the erasure. Backoff and "Retry now" are the retry
 * queue's.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Pending erasures (option `waypost_bridge_erasures`).
 */
class Waypost_Bridge_Erasure_Queue {

	public const OPTION = 'waypost_bridge_erasures';

	/**
	 * A keyed hash of an e-mail (not case-sensitive), so that keys and transient names do not show the e-mail.
	 *
	 * @param string $email E-mail.
	 * @return string 40 hex digits.
	 */
	public static function key( string $email ): string {
		return substr( hash_hmac( 'sha256', strtolower( trim( $email ) ), wp_salt( 'auth' ) ), 0, 40 );
	}

	/**
	 * Queues (or re-queues) the erasure of an e-mail after a failed attempt.
	 *
	 * @param string $email   E-mail.
	 * @param string $error   Why it could not be sent (no personal data).
	 * @param bool   $refused Waypost refused it (4xx): kept but not retried until "Retry now".
	 * @return int|null When it is due (Unix time), null when parked.
	 */
	public static function push( string $email, string $error, bool $refused = false ): ?int {
		return self::update(
			static function ( array $all ) use ( $email, $error, $refused ) {
				$key      = self::key( $email );
				$entry    = isset( $all[ $key ] ) ? $all[ $key ] : array( 'queued_at' => time(), 'attempts' => 0 );
				$attempts = (int) $entry['attempts'] + 1;
				$next     = $refused ? null : time() + Waypost_Bridge_Queue::backoff( $attempts );
				$all[ $key ] = array(
					'email'     => $email,
					'attempts'  => $attempts,
					'next_at'   => $next,
					'error'     => substr( $error, 0, 500 ),
					'queued_at' => (int) $entry['queued_at'],
				);
				return array( $all, $next );
			}
		);
	}

	/**
	 * Forgets an e-mail's queued erasure (Waypost accepted it).
	 *
	 * @param string $email E-mail.
	 */
	public static function forget( string $email ): void {
		self::update(
			static function ( array $all ) use ( $email ) {
				unset( $all[ self::key( $email ) ] );
				return array( $all, null );
			}
		);
	}

	/** @return array<string,array> Key => entry (email, attempts, next_at, error, queued_at). */
	public static function all(): array {
		wp_cache_delete( self::OPTION, 'options' ); // Another request (or WP-Cron) may have changed it.
		$all = get_option( self::OPTION, array() );
		return is_array( $all ) ? $all : array();
	}

	/** How many erasures wait (the settings page and the identity header count them with the queue). */
	public static function count(): int {
		return count( self::all() );
	}

	/** When the next one is due (Unix time), or null when none is. */
	public static function next_due(): ?int {
		$due = array_filter( array_column( self::all(), 'next_at' ), 'is_int' );
		return $due ? min( $due ) : null;
	}

	/** "Retry now": every queued erasure is due now, parked ones too. */
	public static function make_all_due(): void {
		self::update(
			static function ( array $all ) {
				foreach ( $all as $key => $entry ) {
					$all[ $key ]['next_at'] = time();
				}
				return array( $all, null );
			}
		);
	}

	/**
	 * From the retry queue's run: sends the due erasures (POST /host/v1/erasures) until Waypost stops answering.
	 *
	 * @param float $deadline microtime(true) by which to stop.
	 * @return array{sent:int, failed:int, unreachable:bool}
	 */
	public static function run( float $deadline ): array {
		$result = array(
			'sent'        => 0,
			'failed'      => 0,
			'unreachable' => false,
		);
		foreach ( self::all() as $entry ) {
			$left = $deadline - microtime( true );
			if ( $left < 0.5 ) {
				break;
			}
			if ( ! is_int( $entry['next_at'] ) || $entry['next_at'] > time() ) {
				continue;
			}
			$sent = Waypost_Bridge_Privacy::start_erasure( (string) $entry['email'], min( 5.0, $left ) );
			if ( 'accepted' === $sent['result'] ) {
				++$result['sent']; // start_erasure() forgot it.
				continue;
			}
			++$result['failed'];
			self::push( (string) $entry['email'], (string) $sent['error'], 'refused' === $sent['result'] );
			if ( 'retry' === $sent['result'] && 0 === $sent['status'] ) {
				$result['unreachable'] = true;
				break; // Waypost does not answer: the others wait for the next run.
			}
		}
		$next = self::next_due();
		if ( null !== $next ) {
			Waypost_Bridge_Queue_Runner::schedule( max( $next, time() + 5 ) );
		}
		return $result;
	}

	/**
	 * Read-modify-write of the option under a database lock (two requests queueing at once both keep theirs).
	 *
	 * @param callable $change array $all => array{0: array $all, 1: mixed $return}.
	 * @return mixed What $change returned second.
	 */
	private static function update( callable $change ) {
		$lock = Waypost_Bridge_Sender::lock( 'erasures', 0, 5 );
		try {
			list( $all, $return ) = $change( self::all() );
			if ( $all ) {
				update_option( self::OPTION, $all, false );
			} else {
				delete_option( self::OPTION );
			}
		} finally {
			Waypost_Bridge_Sender::unlock( 'erasures', 0, $lock );
		}
		if ( is_int( $return ) ) {
			Waypost_Bridge_Queue_Runner::schedule( $return );
		}
		return $return;
	}
}
