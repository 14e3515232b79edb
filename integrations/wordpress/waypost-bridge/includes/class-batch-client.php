<?php
/**
 * Many writes to Waypost at once: POST /host/v1/batch {operations: [{op, resource, id, data?}]}, cut into requests
 * Waypost accepts, through Waypost_Bridge_Client::request(). Against a Waypost without the batch endpoint the
 * operations go one by one.
 *
 * @package WaypostBridge
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Host API batches.
 */
class Waypost_Bridge_Batch_Client {

	/** Waypost refuses larger batches. */
	public const BATCH_MAX = 500;

	/**
	 * Encoded bytes at which a batch is cut. Waypost refuses a batch body over 12 MiB with 413 (BATCH_BODY_LIMIT in
	 * src/host/routes.ts); 8 MB leaves a third of it for the envelope and the estimate's error, so a chunk rarely gets
	 * that 413 (200 reviews in Cyrillic at the 20,000-character cap are ~24 MB escaped, 500 English ones 10 MB).
	 */
	public const BATCH_BYTES = 8000000;

	/** The error of an answer that failed as a whole without saying why. */
	private const NO_RESULTS = 'Waypost answered the batch without results.';

	/**
	 * Each operation is run on its own by Waypost and gets its own result; the operations are sent as several
	 * requests of at most 500 and about BATCH_BYTES each, and a request Waypost still refuses as too large (413) is
	 * split in halves. Against a Waypost without the batch endpoint (404 for the route) the operations are sent one
	 * by one instead.
	 *
	 * @param array $ops     List of ['op' => 'put'|'delete', 'resource' => string, 'id' => int, 'data' => array].
	 * @param float $timeout Seconds per request.
	 * @return array ['status', 'body' => ['results' => [[index, status, created?, changed?, error?], …]], 'error']:
	 *               status is the (last) request's; error is set when a request failed as a whole.
	 */
	public static function send( array $ops, float $timeout = 15.0 ): array {
		$ops     = array_values( $ops );
		$results = array();
		$status  = 200;
		foreach ( self::chunks( $ops ) as $offset => $chunk ) {
			$answer = self::send_chunk( $chunk, $timeout );
			$listed = isset( $answer['body']['results'] ) && is_array( $answer['body']['results'] );
			foreach ( $listed ? $answer['body']['results'] : array() as $result ) {
				$result['index'] = $offset + (int) ( isset( $result['index'] ) ? $result['index'] : 0 );
				$results[]       = $result;
			}
			if ( null !== $answer['error'] || ! $listed ) {
				$error = null !== $answer['error'] ? $answer['error'] : self::NO_RESULTS;
				return Waypost_Bridge_Client::answer( $answer['status'], array( 'results' => $results ), $error );
			}
			$status = $answer['status'];
		}
		return Waypost_Bridge_Client::answer( $status, array( 'results' => $results ), null );
	}

	/**
	 * The operations cut into requests of at most BATCH_MAX operations and about BATCH_BYTES of JSON.
	 *
	 * @param array $ops Operations (a list).
	 * @return array Index of each chunk's first operation => the chunk's operations.
	 */
	private static function chunks( array $ops ): array {
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
	 * @return array As send().
	 */
	private static function send_chunk( array $ops, float $timeout ): array {
		$answer = Waypost_Bridge_Client::request( 'POST', '/host/v1/batch', array( 'operations' => $ops ), $timeout );
		if ( 404 === $answer['status'] && ! Waypost_Bridge_Client::is_record_not_found( $answer['body'] ) ) {
			return self::one_by_one( $ops, $timeout );
		}
		if ( 413 !== $answer['status'] ) {
			return $answer;
		}
		if ( 1 === count( $ops ) ) {
			// Too large on its own: that operation's failure, so the rest go on (sending it again cannot help).
			$code   = isset( $answer['body']['code'] ) && is_string( $answer['body']['code'] )
				? $answer['body']['code']
				: 'payload_too_large';
			$error  = array(
				'code'   => $code,
				'detail' => null !== $answer['error'] ? $answer['error'] : 'HTTP 413',
			);
			$result = array(
				'index'  => 0,
				'status' => 413,
				'error'  => $error,
			);
			return Waypost_Bridge_Client::answer( 200, array( 'results' => array( $result ) ), null );
		}
		$half    = (int) ceil( count( $ops ) / 2 );
		$results = array();
		$parts   = array(
			0     => array_slice( $ops, 0, $half ),
			$half => array_slice( $ops, $half ),
		);
		foreach ( $parts as $offset => $part ) {
			$part_answer = self::send_chunk( $part, $timeout );
			$listed      = isset( $part_answer['body']['results'] ) && is_array( $part_answer['body']['results'] );
			foreach ( $listed ? $part_answer['body']['results'] : array() as $result ) {
				$result['index'] = $offset + (int) ( isset( $result['index'] ) ? $result['index'] : 0 );
				$results[]       = $result;
			}
			if ( null !== $part_answer['error'] || ! isset( $part_answer['body']['results'] ) ) {
				$error = null !== $part_answer['error'] ? $part_answer['error'] : self::NO_RESULTS;
				return Waypost_Bridge_Client::answer( $part_answer['status'], array( 'results' => $results ), $error );
			}
		}
		return Waypost_Bridge_Client::answer( 200, array( 'results' => $results ), null );
	}

	/**
	 * The operations as single requests (a Waypost older than the batch endpoint), answered like a batch.
	 *
	 * @param array $ops     Operations.
	 * @param float $timeout Seconds for the whole chunk.
	 * @return array
	 */
	private static function one_by_one( array $ops, float $timeout ): array {
		$results = array();
		$each    = max( 2.0, $timeout / max( 1, count( $ops ) ) );
		foreach ( $ops as $index => $op ) {
			$path   = '/host/v1/' . rawurlencode( $op['resource'] ) . '/' . (int) $op['id'];
			$answer = 'delete' === $op['op']
				? Waypost_Bridge_Client::request( 'DELETE', $path, null, $each )
				: Waypost_Bridge_Client::put( $op['resource'], (int) $op['id'], $op['data'], $each );
			if ( 0 === $answer['status'] || $answer['status'] >= 500 || 401 === $answer['status'] ) {
				return $answer; // The request failed as a whole: the caller retries the chunk.
			}
			$result = array(
				'index'  => $index,
				'status' => $answer['status'],
			);
			if ( null !== $answer['error'] ) {
				$code            = isset( $answer['body']['code'] ) ? (string) $answer['body']['code'] : null;
				$result['error'] = array(
					'code'   => null !== $code ? $code : 'http_' . $answer['status'],
					'detail' => $answer['error'],
				);
			} elseif ( isset( $answer['body']['created'] ) ) {
				$result['created'] = (bool) $answer['body']['created'];
				$result['changed'] = ! empty( $answer['body']['changed'] );
			}
			$results[] = $result;
		}
		return Waypost_Bridge_Client::answer( 200, array( 'results' => $results ), null );
	}
}
