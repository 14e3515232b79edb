<?php
/**
 * The W3C Trace Context header the bridge sends with every request to Waypost (issue 37).
 *
 * @package WaypostBridge
 */

use PHPUnit\Framework\TestCase;

/**
 * Waypost_Bridge_Client::traceparent().
 */
final class TraceparentTest extends TestCase {

	public function test_it_is_version_00_a_trace_id_a_span_id_and_the_sampled_flag(): void {
		$this->assertMatchesRegularExpression(
			'/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/',
			Waypost_Bridge_Client::traceparent()
		);
	}

	public function test_every_request_gets_a_fresh_random_trace_and_span(): void {
		$traces = array();
		$spans  = array();
		for ( $i = 0; $i < 200; $i++ ) {
			list( , $trace, $span ) = explode( '-', Waypost_Bridge_Client::traceparent() );
			$traces[]               = $trace;
			$spans[]                = $span;
		}
		$this->assertCount( 200, array_unique( $traces ) );
		$this->assertCount( 200, array_unique( $spans ) );
		$this->assertNotContains( str_repeat( '0', 32 ), $traces, 'an all-zero trace id is invalid' );
		$this->assertNotContains( str_repeat( '0', 16 ), $spans, 'an all-zero span id is invalid' );
	}
}
