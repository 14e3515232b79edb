<?php
// Up to {{max_batches}} batches of {{batch}} from a cursor (null: start over); prints seconds and counts per resource as JSON.
$cursor  = json_decode( base64_decode( '{{cursor}}' ), true );
$by      = array();
$batches = 0;
$done    = false;
while ( $batches < {{max_batches}} && ! $done ) {
	$resource = null === $cursor ? 'trips' : $cursor['resource'];
	$t        = microtime( true );
	$r        = Waypost_Bridge_Backfill::run_batch( $cursor, {{batch}} );
	if ( null !== $r['error'] ) { fwrite( STDERR, $r['error'] ); exit( 1 ); }
	$s = microtime( true ) - $t;
	// A batch that crosses into the next resource (or, having ended exactly on its last record, finds none left and
	// moves on) is counted apart: only whole batches of one resource give that resource's rate.
	$end = $r['cursor']['resource'];
	if ( $end !== $resource ) {
		$resource = 'mixed';
	}
	if ( ! isset( $by[ $resource ] ) ) { $by[ $resource ] = array( 'seconds' => 0, 'sent' => 0, 'failed' => 0, 'skipped' => 0, 'batches' => 0 ); }
	$by[ $resource ]['seconds'] += $s;
	$by[ $resource ]['sent']    += $r['sent'];
	$by[ $resource ]['failed']  += $r['failed'];
	$by[ $resource ]['skipped'] += $r['skipped'];
	++$by[ $resource ]['batches'];
	$cursor = $r['cursor'];
	$done   = $r['done'];
	++$batches;
}
echo wp_json_encode( array( 'cursor' => $cursor, 'done' => $done, 'by' => $by, 'memory' => memory_get_peak_usage( true ) ) );
