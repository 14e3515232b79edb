<?php
/**
 * How a Waypost answer becomes an outcome (sent, failed and retried, or refused and parked), and the retry delays.
 *
 * @package WaypostBridge
 */

use PHPUnit\Framework\TestCase;

/**
 * The sender's status rules and the queue's backoff.
 */
final class SendOutcomeTest extends TestCase {

	/**
	 * @param int    $status HTTP status (0: no answer).
	 * @param string $method put|delete.
	 * @param float  $took   Seconds the request took.
	 */
	private function classify( int $status, string $method = 'put', float $took = 0.05, array $body = array() ): array {
		$res = array(
			'status' => $status,
			'body'   => $body,
			'error'  => 0 === $status ? 'cURL error 28: timed out' : null,
		);
		return waypost_call( 'Waypost_Bridge_Sender', 'classify', $res, $method, 'bookings', 42, $took, 2.0 );
	}

	/**
	 * @dataProvider answers
	 */
	public function test_an_answer_becomes_an_outcome( int $status, string $method, string $result ): void {
		$this->assertSame( $result, $this->classify( $status, $method )['result'] );
	}

	public function answers(): array {
		return array(
			'200 stored'                  => array( 200, 'put', 'sent' ),
			'201 created'                 => array( 201, 'put', 'sent' ),
			'204 deleted'                 => array( 204, 'delete', 'sent' ),
			'404 on a delete: gone'       => array( 404, 'delete', 'sent' ),
			'404 on a put: refused'       => array( 404, 'put', 'refused' ),
			'400 bad record: refused'     => array( 400, 'put', 'refused' ),
			'422: refused'                => array( 422, 'put', 'refused' ),
			'401 token: retried'          => array( 401, 'put', 'failed' ),
			'408: retried'                => array( 408, 'put', 'failed' ),
			'409 conflict: retried'       => array( 409, 'put', 'failed' ),
			'425: retried'                => array( 425, 'put', 'failed' ),
			'429 slow down: retried'      => array( 429, 'put', 'failed' ),
			'500: retried'                => array( 500, 'put', 'failed' ),
			'503: retried'                => array( 503, 'put', 'failed' ),
			'no answer: retried'          => array( 0, 'put', 'failed' ),
		);
	}

	public function test_no_answer_is_unreachable_and_slow_only_after_a_wait(): void {
		$fast = $this->classify( 0, 'put', 0.01 );
		$this->assertTrue( $fast['unreachable'] );
		$this->assertFalse( $fast['slow'], 'a refused connection costs nothing: no cool-down' );
		$slow = $this->classify( 0, 'put', 1.9 );
		$this->assertTrue( $slow['slow'], 'a timeout starts the cool-down' );
		$this->assertStringContainsString( 'PUT booking 42: Waypost did not answer (cURL error 28: timed out)', $slow['error'] );
	}

	public function test_errors_name_the_record_and_waypost_s_detail(): void {
		$out = $this->classify( 422, 'put', 0.05, array( 'detail' => 'total: must be >= 0' ) );
		$this->assertSame( 'PUT booking 42: Waypost answered 422, not retried until the record changes: total: must be >= 0', $out['error'] );
		$this->assertStringContainsString( 'refused the host token (401)', $this->classify( 401 )['error'] );
	}

	public function test_backoff_doubles_from_a_minute_to_an_hour(): void {
		$delays = array_map( array( 'Waypost_Bridge_Queue', 'backoff' ), range( 1, 9 ) );
		$this->assertSame( array( 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600 ), $delays );
		$this->assertSame( 60, Waypost_Bridge_Queue::backoff( 0 ) );
		$this->assertSame( 3600, Waypost_Bridge_Queue::backoff( 500 ) );
	}
}
