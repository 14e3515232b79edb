<?php
// WordPress' HTTP answered in PHP: every batch operation accepted (200), nothing leaves the process.
add_filter( 'pre_http_request', static function ( $pre, $args, $url ) {
	if ( false === strpos( $url, '/host/v1/batch' ) ) {
		return $pre;
	}
	$results = array();
	$n       = substr_count( (string) $args['body'], '{"op":' );
	for ( $i = 0; $i < $n; $i++ ) {
		$results[] = array( 'index' => $i, 'status' => 200, 'created' => true, 'changed' => true );
	}
	return array( 'headers' => array(), 'body' => wp_json_encode( array( 'results' => $results ) ), 'response' => array( 'code' => 200, 'message' => 'OK' ), 'cookies' => array(), 'filename' => null );
}, 10, 3 );
