<?php
/**
 * Forwarding: sends what a request changed (Waypost_Bridge_Collector noted it) to Waypost, once per record, in its
 * final state, at the end of the request, after the visitor's response has been sent where the server allows it.
 *
 * It plans the order (what is referred to goes first), sends each record through Waypost_Bridge_Sender with its lock
 * held, and keeps the durable queue (Waypost_Bridge_Queue) in step: a send that fails is queued, one that succeeds
 * drops the row it made obsolete. Nothing here may ever slow down a checkout: a request spends at most BUDGET seconds
 * talking to Waypost, and after a timeout the next requests queue their writes for COOL_DOWN seconds.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Sends a request's touched records at shutdown.
 */
class Waypost_Bridge_Forwarder {

	/** Seconds for one request to Waypost (connect + response). */
	public const TIMEOUT = 2.0;

	/** Seconds one WordPress request may spend sending in total; what does not fit goes to the queue. */
	public const BUDGET = 2.0;

	/** Most records sent directly by one request (a bulk edit of hundreds goes to the queue instead). */
	public const MAX_DIRECT = 40;

	/** After a timeout, requests stop trying Waypost directly for this long (the queue keeps probing). */
	public const COOL_DOWN = 60;

	public const UNREACHABLE_OPTION = 'waypost_bridge_unreachable_until';

	/** @var int|null Cached value of the unreachable option (null: not read yet). */
	private static $unreachable_until = null;

	/**
	 * At `shutdown` (from the collector): sends every touched record once, in its final state.
	 *
	 * @param array $touched "resource:id" => array{resource, id, gone: bool, seq: int}.
	 */
	public static function flush( array $touched ): void {
		if ( ! self::configured() ) {
			return; // Not connected yet: "Send existing records" (backfill) catches up after setup.
		}
		/**
		 * Whether this request's changes are forwarded to Waypost (e.g. false during a bulk import, followed by
		 * "Send existing records").
		 *
		 * @param bool  $enabled Default true.
		 * @param array $touched The records touched: "resource:id" => [resource, id, gone, seq].
		 */
		if ( ! apply_filters( 'waypost_bridge_forward_enabled', true, $touched ) ) {
			return;
		}
		if ( function_exists( 'ignore_user_abort' ) ) {
			ignore_user_abort( true );
		}
		self::finish_response();

		$start    = microtime( true );
		$deadline = $start + self::BUDGET;
		$plan     = Waypost_Bridge_Planner::plan( $touched );
		$down     = self::unreachable_until();
		$why      = $down > time() ? 'Waypost did not answer a moment ago; waiting for the retry.' : null;
		$due      = $down > time() ? $down : null;
		$direct   = 0;
		foreach ( $plan as $item ) {
			try {
				$left = $deadline - microtime( true );
				if ( $down > time() || $left < 0.25 || $direct >= self::MAX_DIRECT ) {
					// Not attempted: Waypost is unreachable, or this request's time is used up. Queued without
					// counting an attempt, due with the record that failed (so the request's records stay in order),
					// at the end of the cool-down after a timeout, or at once.
					$op = $item['gone'] ? 'delete' : 'put';
					Waypost_Bridge_Queue::push( $item['resource'], $item['id'], $op, $why, 'deferred', $due );
					continue;
				}
				++$direct;
				$outcome = self::deliver( $item['resource'], $item['id'], $item['gone'] ? 'delete' : 'put', $deadline );
				if ( ! empty( $outcome['unreachable'] ) ) {
					// Waypost is down: queue the rest of this request without trying. After a timeout (not a refused
					// connection, which costs nothing) the next requests skip trying too, for COOL_DOWN seconds.
					$why      = $outcome['error'];
					$deadline = 0.0;
					$until    = isset( $outcome['queued_until'] ) ? $outcome['queued_until'] : null;
					$due      = is_int( $until ) ? $until : null;
					if ( $outcome['slow'] ) {
						self::mark_unreachable();
					}
				}
			} catch ( \Throwable $e ) {
				self::log( "sending {$item['resource']} {$item['id']}: " . $e->getMessage() );
				try {
					$op = $item['gone'] ? 'delete' : 'put';
					$why = 'Bridge error: ' . $e->getMessage();
					Waypost_Bridge_Queue::push( $item['resource'], $item['id'], $op, $why, 'failed' );
				} catch ( \Throwable $e2 ) {
					self::log( 'queue: ' . $e2->getMessage() );
				}
			}
		}
	}

	/**
	 * Ends the visitor's response before talking to Waypost, where the server can (PHP-FPM, LiteSpeed).
	 */
	private static function finish_response(): void {
		if ( defined( 'WP_CLI' ) && WP_CLI ) {
			return;
		}
		if ( function_exists( 'fastcgi_finish_request' ) ) {
			fastcgi_finish_request();
		} elseif ( function_exists( 'litespeed_finish_request' ) ) {
			litespeed_finish_request();
		}
	}

	// ------------------------------------------------------------------------------------------------ sending

	/**
	 * Sends one record now (from a request): with its lock held, reads it, sends it, and keeps the queue in step.
	 *
	 * @param string $resource Resource.
	 * @param int    $id       Id.
	 * @param string $op       put|delete (delete: the record was deleted/trashed during the request).
	 * @param float  $deadline microtime(true) by which this request must be done with Waypost.
	 * @return array{result:string, error:?string, unreachable:bool, slow:bool}
	 */
	public static function deliver( $resource, $id, $op, $deadline ): array {
		// Wait up to a second for the record's lock if there is time: another request (or the queue) sending the
		// same record usually needs a few milliseconds.
		$lock    = Waypost_Bridge_Sender::lock( $resource, $id, $deadline - microtime( true ) > 1.5 ? 1 : 0 );
		$timeout = min( self::TIMEOUT, $deadline - microtime( true ) );
		if ( false === $lock || $timeout < 0.25 ) {
			// Still busy (or no time left): queue it; it is sent after the one in flight, in its latest state.
			Waypost_Bridge_Sender::unlock( $resource, $id, $lock );
			Waypost_Bridge_Queue::push( $resource, $id, $op, null, 'deferred' );
			return Waypost_Bridge_Sender::outcome( 'busy' );
		}
		try {
			$queued  = Waypost_Bridge_Queue::revision_of( $resource, $id ); // Read before the record: see forget_if().
			$outcome = Waypost_Bridge_Sender::send( $resource, $id, $op, $timeout );
			switch ( $outcome['result'] ) {
				case 'sent':
					Waypost_Bridge_Queue::forget( $resource, $id, $queued );
					break;
				case 'failed':
				case 'refused':
					$outcome['queued_until'] = Waypost_Bridge_Queue::push(
						$resource,
						$id,
						$outcome['method'],
						$outcome['error'],
						$outcome['result']
					);
					break;
			}
			return $outcome;
		} finally {
			Waypost_Bridge_Sender::unlock( $resource, $id, $lock );
		}
	}

	/**
	 * Sends one queued row (from WP-Cron or "Retry now"): with the record's lock held, re-reads the row and the
	 * record, sends the latest state and settles the row.
	 *
	 * @param object $row     Row (id, resource, record_id, op, revision).
	 * @param float  $timeout Seconds.
	 * @return array{result:string, error:?string, unreachable:bool, slow:bool}
	 */
	public static function deliver_queued( $row, $timeout ): array {
		$resource = (string) $row->resource;
		$id       = (int) $row->record_id;
		$lock     = Waypost_Bridge_Sender::lock( $resource, $id, 0 );
		if ( false === $lock ) {
			return Waypost_Bridge_Sender::outcome( 'busy' );
		}
		try {
			$current = Waypost_Bridge_Queue::row( (int) $row->id );
			if ( ! $current ) {
				return Waypost_Bridge_Sender::outcome( 'nothing' ); // Sent meanwhile by a request.
			}
			$outcome = Waypost_Bridge_Sender::send( $resource, $id, (string) $current->op, $timeout );
			Waypost_Bridge_Queue::settle( $current, $outcome['result'], $outcome['error'] );
			if ( 'sent' === $outcome['result'] ) {
				self::mark_reachable();
			} elseif ( ! empty( $outcome['unreachable'] ) && $outcome['slow'] ) {
				self::mark_unreachable();
			}
			return $outcome;
		} finally {
			Waypost_Bridge_Sender::unlock( $resource, $id, $lock );
		}
	}

	// ------------------------------------------------------------------------------------------------ state

	/** Whether a Waypost URL and host token are set. */
	public static function configured(): bool {
		return Waypost_Bridge_Connection::is_configured(); // The main file loads every part or none.
	}

	/** Until when (Unix time) requests skip trying Waypost directly after a timeout; 0 if not. */
	public static function unreachable_until(): int {
		if ( null === self::$unreachable_until ) {
			self::$unreachable_until = (int) get_option( self::UNREACHABLE_OPTION, 0 );
		}
		return self::$unreachable_until;
	}

	/** Waypost timed out: for COOL_DOWN seconds, requests queue their writes instead of waiting for it. */
	public static function mark_unreachable(): int {
		self::$unreachable_until = time() + self::COOL_DOWN;
		update_option( self::UNREACHABLE_OPTION, self::$unreachable_until, false );
		return self::$unreachable_until;
	}

	/** Waypost answered: requests send directly again. */
	public static function mark_reachable(): void {
		if ( 0 !== self::unreachable_until() ) {
			delete_option( self::UNREACHABLE_OPTION );
			self::$unreachable_until = 0;
		}
	}

	/**
	 * Logs to the PHP error log.
	 *
	 * @param string $message Message.
	 */
	public static function log( $message ): void {
		// phpcs:ignore WordPress.PHP.DevelopmentFunctions.error_log_error_log
		error_log( 'Waypost bridge: ' . $message );
	}
}
